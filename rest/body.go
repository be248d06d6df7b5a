package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/graph/apperr"
	"github.com/podium/podium/graph/scalar"
)

// Request bodies are checked against the GraphQL input type the operation takes, so REST and
// GraphQL accept exactly the same shapes. REST is stricter in one way only: a key marked
// @required in the schema must be present even when its value may be null (docs/rest-api.md §1).
// Unknown keys are ignored.

// decodeBody checks raw against the input type typeName and returns it normalized: unknown keys
// dropped, timestamps in RFC 3339. The result unmarshals into the gqlgen input struct.
func decodeBody(schema *ast.Schema, typeName string, raw []byte, version string) (json.RawMessage, error) {
	def := schema.Types[typeName]
	if def == nil {
		return nil, errors.New("rest: no input type " + typeName)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, apperr.InvalidJSON()
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, apperr.InvalidJSON()
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, apperr.InvalidBody("The request body must be a JSON object")
	}
	c := checker{schema: schema, version: version}
	out, err := c.object(def, obj, "")
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

type checker struct {
	schema *ast.Schema
	// version is the API version of the request: removedFields and addedFields depend on it.
	version string
}

// requiredKey reports whether f is @required in REST bodies (in every version that takes it; see
// removedFields).
func requiredKey(f *ast.FieldDefinition) bool { return f.Directives.ForName("required") != nil }

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (c checker) object(def *ast.Definition, obj map[string]any, path string) (map[string]any, error) {
	out := make(map[string]any, len(def.Fields))
	for _, f := range def.Fields {
		p := join(path, f.Name)
		val, present := obj[f.Name]
		if removedIn(def.Name, f.Name, c.version) {
			if present {
				return nil, apperr.InvalidBody("%s is not part of API version %s", p, c.version)
			}
			continue
		}
		absent, added := addedIn(def.Name, f.Name, c.version)
		if absent {
			continue
		}
		if !present {
			if (f.Type.NonNull && f.DefaultValue == nil) || requiredKey(f) || added {
				return nil, apperr.InvalidBody("%s is required", p)
			}
			continue
		}
		if val == nil {
			if f.Type.NonNull {
				return nil, apperr.InvalidBody("%s must not be null", p)
			}
			out[f.Name] = nil
			continue
		}
		nv, err := c.value(f.Type, val, p)
		if err != nil {
			return nil, err
		}
		out[f.Name] = nv
	}
	return out, nil
}

func (c checker) value(t *ast.Type, val any, path string) (any, error) {
	if t.Elem != nil {
		arr, ok := val.([]any)
		if !ok {
			return nil, apperr.InvalidBody("%s must be an array", path)
		}
		out := make([]any, len(arr))
		for i, e := range arr {
			p := path + "[" + strconv.Itoa(i) + "]"
			if e == nil {
				if t.Elem.NonNull {
					return nil, apperr.InvalidBody("%s must not be null", p)
				}
				continue
			}
			v, err := c.value(t.Elem, e, p)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	def := c.schema.Types[t.NamedType]
	switch def.Kind {
	case ast.InputObject:
		obj, ok := val.(map[string]any)
		if !ok {
			return nil, apperr.InvalidBody("%s must be an object", path)
		}
		return c.object(def, obj, path)
	case ast.Enum:
		s, ok := val.(string)
		if ok && def.EnumValues.ForName(s) != nil {
			return s, nil
		}
		names := make([]string, len(def.EnumValues))
		for i, ev := range def.EnumValues {
			names[i] = ev.Name
		}
		return nil, apperr.InvalidBody("%s must be one of %s", path, strings.Join(names, ", "))
	}
	var (
		out any
		err error
	)
	switch def.Name {
	case "String", "ID", "Cursor":
		out, err = scalar.UnmarshalString(val)
	case "Boolean":
		out, err = scalar.UnmarshalBoolean(val)
	case "Int":
		out, err = scalar.UnmarshalInt(val)
	case "Float":
		out, err = scalar.UnmarshalFloat(val)
	case "Time":
		out, err = scalar.UnmarshalTime(val)
	case "Map":
		obj, ok := val.(map[string]any)
		if !ok {
			return nil, apperr.InvalidBody("%s must be an object", path)
		}
		return obj, nil
	default:
		return val, nil
	}
	var ie *scalar.InputError
	if errors.As(err, &ie) {
		return nil, apperr.New(http.StatusBadRequest, ie.Code, path+" "+ie.Reason)
	}
	return out, err
}
