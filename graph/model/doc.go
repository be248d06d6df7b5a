// Package model holds the read models of Podium's operations: the types gqlgen generates from
// graph/*.graphqls (models_gen.go) and the hand-written ones gqlgen.yml binds the schema to, which
// REST encodes in the same shape. It holds data and its encoding only; the operations that fill
// it live elsewhere.
package model
