package graph

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestSchemaIsDescribed keeps the GraphQL schema documented for the front ends that read it
// through introspection, GraphiQL and docs/schema.graphql: every type, field, input field,
// argument and enum value that Podium declares (in graph/*.graphqls, or through entgql in
// graph/ent.graphql) carries a description. gqlparser's built-ins, introspection types and gqlgen's
// own directives are not ours to describe.
//
// A failure lists each undescribed element by its coordinate (Type.field(arg:)). Describe it in
// graph/*.graphqls; for graph/ent.graphql, add a Comment to the ent field or type in ent/schema, or
// extend the schema hook in ent/entc.go for what entgql generates; then run make generate.
func TestSchemaIsDescribed(t *testing.T) {
	t.Parallel()

	s := NewExecutableSchema(Config{}).Schema()
	var missing []string
	undescribed := func(desc, coordinate string) {
		if strings.TrimSpace(desc) == "" {
			missing = append(missing, coordinate)
		}
	}
	args := func(owner string, list ast.ArgumentDefinitionList) {
		for _, a := range list {
			undescribed(a.Description, owner+"("+a.Name+":)")
		}
	}

	for _, def := range s.Types {
		if !ours(def.Name, def.Position) {
			continue
		}
		undescribed(def.Description, def.Name)
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			undescribed(f.Description, def.Name+"."+f.Name)
			args(def.Name+"."+f.Name, f.Arguments)
		}
		for _, v := range def.EnumValues {
			undescribed(v.Description, def.Name+"."+v.Name)
		}
	}
	for _, d := range s.Directives {
		if !ours(d.Name, d.Position) || gqlgenDirective(d.Name) {
			continue
		}
		undescribed(d.Description, "@"+d.Name)
		args("@"+d.Name, d.Arguments)
	}

	slices.Sort(missing)
	require.Empty(t, missing, "schema elements without a description:\n%s", strings.Join(missing, "\n"))
}

// ours reports whether a type or directive is declared by Podium's schema files rather than built
// into gqlparser (String, __Type, @deprecated, …).
func ours(name string, pos *ast.Position) bool {
	if strings.HasPrefix(name, "__") {
		return false
	}
	return pos != nil && pos.Src != nil && !pos.Src.BuiltIn
}

// gqlgenDirective reports whether a directive is one of gqlgen's code-generation directives
// (@goField, @goModel, …), which entgql declares in graph/ent.graphql but which are not part of
// the API.
func gqlgenDirective(name string) bool { return strings.HasPrefix(name, "go") }
