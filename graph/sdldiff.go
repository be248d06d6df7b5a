//go:build ignore

// sdldiff.go compares two GraphQL schemas as sets of definitions, so that a change which only
// moves definitions between graph/*.graphqls files (and so reorders types, and fields of extended
// types, in docs/schema.graphql) can be told from a change to the API:
//
//	git show HEAD~1:docs/schema.graphql > /tmp/old.graphql
//	go run ./graph/sdldiff.go /tmp/old.graphql docs/schema.graphql
//
// It prints every definition added, removed or changed (descriptions, arguments, types and
// directives included) and exits 1 when there is one; definitions whose fields are only in a
// different order are listed as such and do not count as a difference.
package main

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./graph/sdldiff.go OLD.graphql NEW.graphql")
		os.Exit(2)
	}
	old, err := definitions(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cur, err := definitions(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	names := make([]string, 0, len(old)+len(cur))
	for name := range old {
		names = append(names, name)
	}
	for name := range cur {
		if _, ok := old[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	differences, reordered := 0, 0
	for _, name := range names {
		o, inOld := old[name]
		n, inNew := cur[name]
		switch {
		case !inNew:
			fmt.Println("removed:", name)
			differences++
		case !inOld:
			fmt.Println("added:", name)
			differences++
		case o.sorted != n.sorted:
			fmt.Printf("changed: %s\n--- old\n%s\n+++ new\n%s\n", name, o.sorted, n.sorted)
			differences++
		case o.asIs != n.asIs:
			fmt.Println("fields reordered:", name)
			reordered++
		}
	}
	fmt.Printf("%d definitions in the old schema, %d in the new; %d differ, %d only reordered\n",
		len(old), len(cur), differences, reordered)
	if differences > 0 {
		os.Exit(1)
	}
}

// definition is one schema definition formatted alone: as written, and with its fields, input
// fields and enum values sorted by name.
type definition struct{ asIs, sorted string }

// definitions reads a schema file into its definitions, keyed by kind and name.
func definitions(path string) (map[string]definition, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := parser.ParseSchema(&ast.Source{Name: path, Input: string(src)})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]definition{}
	add := func(key string, d definition) error {
		if _, dup := out[key]; dup {
			return fmt.Errorf("%s: %s is defined twice", path, key)
		}
		out[key] = d
		return nil
	}
	for _, def := range doc.Definitions {
		if err := add(string(def.Kind)+" "+def.Name, describe(&ast.SchemaDocument{}, def, false)); err != nil {
			return nil, err
		}
	}
	for _, ext := range doc.Extensions {
		if err := add("extend "+string(ext.Kind)+" "+ext.Name, describe(&ast.SchemaDocument{}, ext, true)); err != nil {
			return nil, err
		}
	}
	for _, dir := range doc.Directives {
		f := format(&ast.SchemaDocument{Directives: ast.DirectiveDefinitionList{dir}})
		if err := add("directive @"+dir.Name, definition{asIs: f, sorted: f}); err != nil {
			return nil, err
		}
	}
	for _, s := range append(doc.Schema, doc.SchemaExtension...) {
		f := format(&ast.SchemaDocument{Schema: ast.SchemaDefinitionList{s}})
		if err := add("schema", definition{asIs: f, sorted: f}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// describe formats def alone, as written and sorted; extension says whether it extends a type.
func describe(doc *ast.SchemaDocument, def *ast.Definition, extension bool) definition {
	one := func(d *ast.Definition) string {
		doc := *doc
		if extension {
			doc.Extensions = ast.DefinitionList{d}
		} else {
			doc.Definitions = ast.DefinitionList{d}
		}
		return format(&doc)
	}
	sorted := *def
	sorted.Fields = slices.Clone(def.Fields)
	slices.SortFunc(sorted.Fields, func(a, b *ast.FieldDefinition) int { return strings.Compare(a.Name, b.Name) })
	sorted.EnumValues = slices.Clone(def.EnumValues)
	slices.SortFunc(sorted.EnumValues, func(a, b *ast.EnumValueDefinition) int { return strings.Compare(a.Name, b.Name) })
	return definition{asIs: one(def), sorted: one(&sorted)}
}

func format(doc *ast.SchemaDocument) string {
	var b bytes.Buffer
	formatter.NewFormatter(&b, formatter.WithIndent("  ")).FormatSchemaDocument(doc)
	return b.String()
}
