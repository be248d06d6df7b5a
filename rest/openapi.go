package rest

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/podium/podium/graph/scalar"
)

// The OpenAPI 3.0 document is generated from the route table: request bodies from the GraphQL
// input types the routes check bodies against, responses from the Go types the routes encode.
// What the document promises is therefore what the server does.

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// OpenAPI returns the OpenAPI 3 document of the API version served at /api/v1/openapi.json, its
// bodies described by the input types of schema (the GraphQL schema). It depends on the route
// table and the schema alone, so it needs no database; `make generate` writes each version's to
// docs (OpenAPIFile), the snapshots the tests hold the served documents to.
func OpenAPI(schema *ast.Schema, version string) []byte {
	b, err := json.Marshal(buildOpenAPI(schema, version))
	if err != nil {
		panic("rest: openapi: " + err.Error())
	}
	return b
}

// OpenAPIFile is where `make generate` writes the document of version: docs/openapi.json for the
// default, docs/openapi-<version>.json for the others.
func OpenAPIFile(version string) string {
	if version == DefaultVersion {
		return "docs/openapi.json"
	}
	return "docs/openapi-" + version + ".json"
}

// openAPI answers GET /api/v1/openapi.json: the document of the version named by ?version= or the
// Podium-Version header, else the default's. No key needed.
func (a *API) openAPI(w http.ResponseWriter, r *http.Request) {
	if v := r.URL.Query().Get("version"); v != "" {
		r.Header.Set(VersionHeader, v)
	}
	version, err := requestVersion(r, "")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.openapiMu.Lock()
	doc, ok := a.openapiDocs[version]
	if !ok {
		doc = OpenAPI(a.schema, version)
		a.openapiDocs[version] = doc
	}
	a.openapiMu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set(VersionHeader, version)
	w.Header().Add("Vary", VersionHeader)
	_, _ = w.Write(doc)
}

type obj = map[string]any

// buildOpenAPI describes every route with its routeDocs entry, and with the description of its
// GraphQL field where the entry has none. A route without one, or an entry
// without a route, is a mistake in the tables and panics, failing every test that reads the
// document.
func buildOpenAPI(schema *ast.Schema, version string) obj {
	in := inputSchemas{schema, version}
	if len(routeDocs) != len(routes) {
		panic("rest: openapi: routeDocs has entries for operations that are not in the route table")
	}
	paths := obj{}
	fields := restFields(schema)
	for _, rt := range routes {
		if _, ok := routeDocs[rt.operationID]; !ok {
			panic("rest: openapi: no routeDocs entry for " + rt.operationID)
		}
		if !rt.inVersion(version) {
			continue
		}
		doc := rt.docIn(version, fields)
		item, _ := paths[rt.path].(obj)
		if item == nil {
			item = obj{}
			paths[rt.path] = item
		}
		item[strings.ToLower(rt.method)] = describeOperation(&rt, doc, in)
	}
	return obj{
		"openapi": "3.0.3",
		"info": obj{
			"title":   "Podium API",
			"version": version,
			"description": "Events, library, sessions, speakers, reviews, resources and agenda over REST. " +
				"Authenticate with an organization API key (`Authorization: Bearer pdm_…`). Success " +
				"responses return the resource itself; every error is `{\"error\":{\"code\",\"message\"}}` " +
				"with a matching HTTP status. The same operations are available over GraphQL at /graphql. " +
				"This document is API version " + version + ": send `" + VersionHeader + ": " + version +
				"` with each request (versions: " + strings.Join(Versions, ", ") + "; none means " + DefaultVersion + ").",
		},
		"servers":  []any{obj{"url": "/api/v1"}},
		"security": []any{obj{"bearerAuth": []string{}}},
		"paths":    paths,
		"components": obj{
			"securitySchemes": obj{"bearerAuth": obj{
				"type": "http", "scheme": "bearer", "description": "An organization API key (pdm_…)",
			}},
			"schemas": obj{"Error": obj{
				"type":     "object",
				"required": []string{"error"},
				"properties": obj{"error": obj{
					"type":     "object",
					"required": []string{"code", "message"},
					"properties": obj{
						"code":    obj{"type": "string", "description": "Stable machine-readable error code"},
						"message": obj{"type": "string", "description": "A sentence for people"},
					},
				}},
			}},
		},
	}
}

// docIn is what the documents of API version say of rt (the OpenAPI document, the MCP tools):
// its routeDocs entry, overridden by its currentDocs entry from VersionCurrent on, and described
// by its GraphQL field (of fields, restFields of the schema) where the entry has no description.
func (rt *route) docIn(version string, fields map[string][]sdlField) routeDoc {
	doc := routeDocs[rt.operationID]
	if d, ok := currentDocs[rt.operationID]; ok && version >= VersionCurrent {
		doc = doc.overriddenBy(d)
	}
	if f := fields[rt.method+" "+rt.path]; doc.description == "" && len(f) == 1 {
		doc.description = proseOf(f[0].description)
	}
	return doc
}

// describeOperation describes one route.
func describeOperation(rt *route, doc routeDoc, in inputSchemas) obj {
	op := obj{
		"operationId": rt.operationID,
		"summary":     doc.summary,
		"tags":        []string{doc.tag},
		"responses":   responses(rt, doc),
	}
	if doc.description != "" {
		op["description"] = doc.description
	}
	if rt.public() {
		op["security"] = []any{}
	}
	params := []any{}
	for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
		params = append(params, obj{"name": m[1], "in": "path", "required": true, "schema": obj{"type": "string"}})
	}
	for _, qp := range doc.query {
		s := obj{"type": "string"}
		if len(qp.enum) > 0 {
			s["enum"] = qp.enum
		}
		params = append(params, obj{"name": qp.name, "in": "query", "required": false,
			"description": qp.description, "schema": s})
	}
	if rt.isWrite() {
		params = append(params, obj{"name": "Idempotency-Key", "in": "header", "required": false,
			"description": "Send the same key again (within 24 h) to get the first response instead of a second write; " +
				"another request with the same key is refused with 422 idempotency_key_reused.",
			"schema": obj{"type": "string", "minLength": 1, "maxLength": 255}})
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if rt.input != "" {
		op["requestBody"] = obj{"required": !rt.optionalBody(), "content": obj{
			"application/json": obj{"schema": in.object(in.schema.Types[rt.input])},
		}}
	}
	return op
}

func responses(rt *route, doc routeDoc) obj {
	errRef := func(desc string) obj {
		return obj{"description": desc, "content": obj{
			"application/json": obj{"schema": obj{"$ref": "#/components/schemas/Error"}},
		}}
	}
	out := obj{
		"400":     errRef("Invalid request"),
		"401":     errRef("Missing or invalid API key"),
		"403":     errRef("The key's organization cannot access this event"),
		"404":     errRef("Not found"),
		"default": errRef("Any other error, in the same envelope"),
	}
	if rt.public() {
		delete(out, "401")
		delete(out, "403")
	} else {
		out["429"] = errRef("Too many requests for this API key (rate_limited); see Retry-After")
	}
	if rt.isWrite() {
		out["422"] = errRef("The Idempotency-Key was used for another request (idempotency_key_reused)")
	}
	_, isFeed := doc.output.(calendarFeed)
	_, isFile := doc.output.(fileBody)
	export, isExport := doc.output.(exportDocument)
	switch {
	case rt.status == http.StatusNoContent:
		out["204"] = obj{"description": "Done; no body"}
	case isFile:
		binary := obj{"*/*": obj{"schema": obj{"type": "string", "format": "binary"}}}
		out["200"] = obj{"description": "The file's bytes, with its Content-Type, Content-Length and Content-Disposition", "content": binary}
		out["206"] = obj{"description": "The range of the file's bytes a Range header asked for", "content": binary}
	case isFeed:
		mediaType, _, _ := strings.Cut(calendarContentType, ";")
		out[strconv.Itoa(rt.status)] = obj{"description": "Success", "content": obj{
			mediaType: obj{"schema": obj{"type": "string"}},
		}}
	case isExport:
		out[strconv.Itoa(rt.status)] = obj{"description": "Success: " + export.format, "content": obj{
			export.mediaType: obj{"schema": obj{"type": export.schemaType}},
		}}
	default:
		out[strconv.Itoa(rt.status)] = obj{"description": "Success", "content": obj{
			"application/json": obj{"schema": goSchema(reflect.ValueOf(doc.output))},
		}}
	}
	return out
}

// inputSchemas describes GraphQL input types as REST receives them (see decodeBody).
type inputSchemas struct {
	schema  *ast.Schema
	version string
}

func (in inputSchemas) object(def *ast.Definition) obj {
	props := obj{}
	required := []string{}
	for _, f := range def.Fields {
		absent, added := addedIn(def.Name, f.Name, in.version)
		if absent || removedIn(def.Name, f.Name, in.version) {
			continue
		}
		s := in.typeSchema(f.Type)
		if f.Description != "" {
			s["description"] = strings.TrimSpace(f.Description)
		}
		props[f.Name] = s
		if (f.Type.NonNull && f.DefaultValue == nil) || requiredKey(f) || added {
			required = append(required, f.Name)
		}
	}
	s := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func (in inputSchemas) typeSchema(t *ast.Type) obj {
	var s obj
	if t.Elem != nil {
		s = obj{"type": "array", "items": in.typeSchema(t.Elem)}
	} else {
		def := in.schema.Types[t.NamedType]
		switch {
		case def.Kind == ast.InputObject:
			s = in.object(def)
		case def.Kind == ast.Enum:
			values := make([]string, len(def.EnumValues))
			for i, v := range def.EnumValues {
				values[i] = v.Name
			}
			s = obj{"type": "string", "enum": values}
		case def.Name == "Int":
			s = obj{"type": "integer", "format": "int32"}
		case def.Name == "Float":
			s = obj{"type": "number"}
		case def.Name == "Boolean":
			s = obj{"type": "boolean"}
		case def.Name == "Time":
			s = obj{"type": "string", "format": "date-time"}
		case def.Name == "Map":
			s = obj{"type": "object", "additionalProperties": true}
		default:
			s = obj{"type": "string"}
		}
	}
	if !t.NonNull {
		s["nullable"] = true
	}
	return s
}

var schemaCache sync.Map // reflect.Type → obj

// goSchema describes the JSON encoding of a Go value's type: structs by their json tags (every
// field required, since responses never omit keys), pointers as nullable, `enum` tags as enums.
func goSchema(v reflect.Value) obj {
	if !v.IsValid() {
		return obj{}
	}
	if alts, ok := v.Interface().(oneOf); ok {
		list := make([]any, len(alts))
		for i, alt := range alts {
			list[i] = goSchema(reflect.ValueOf(alt))
		}
		return obj{"anyOf": list}
	}
	return typeToSchema(v.Type())
}

var (
	timeTypes     = []reflect.Type{reflect.TypeOf(time.Time{}), reflect.TypeOf(scalar.Timestamp{})}
	jsonMarshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
)

func typeToSchema(t reflect.Type) obj {
	if slices.Contains(timeTypes, t) {
		return obj{"type": "string", "format": "date-time"}
	}
	if t.Kind() == reflect.Struct && (t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler)) {
		return obj{} // encodes itself: any value
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := maps.Clone(typeToSchema(t.Elem()))
		s["nullable"] = true
		return s
	case reflect.Slice, reflect.Array:
		return obj{"type": "array", "items": typeToSchema(t.Elem())}
	case reflect.Map:
		return obj{"type": "object", "additionalProperties": true}
	case reflect.String:
		return obj{"type": "string"}
	case reflect.Bool:
		return obj{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return obj{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return obj{"type": "number"}
	case reflect.Interface:
		return obj{}
	case reflect.Struct:
		if cached, ok := schemaCache.Load(t); ok {
			return cached.(obj)
		}
		props := obj{}
		var required []string
		var add func(t reflect.Type)
		add = func(t reflect.Type) {
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				if f.Anonymous && f.Type.Kind() == reflect.Struct {
					add(f.Type)
					continue
				}
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" || !f.IsExported() {
					continue
				}
				if name == "" {
					name = f.Name
				}
				s := maps.Clone(typeToSchema(f.Type))
				if enum := f.Tag.Get("enum"); enum != "" {
					s["enum"] = strings.Split(enum, ",")
				}
				props[name] = s
				required = append(required, name)
			}
		}
		add(t)
		sort.Strings(required)
		s := obj{"type": "object", "properties": props, "required": required}
		schemaCache.Store(t, s)
		return s
	}
	return obj{}
}

// An operation served over both REST and GraphQL is described once, by its GraphQL field: the
// field's description ends with a sentence naming the route, `REST: POST /events/{eventId}/…`,
// which links the two. The OpenAPI description of a route whose routeDocs entry has none is that
// field's description without the REST sentence (TestRoutesNamedBySDL holds the links true).

var (
	// restSentence is a `REST: …` sentence of a description: up to a full stop followed by space.
	restSentence = regexp.MustCompile(`[ \t]*REST:(?:[^.]|\.\S)*(?:\.(?:\s|$)|$)`)
	// restRef is a method and path inside a REST sentence; the path may wrap to the next line.
	restRef = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE)\s+(/[A-Za-z0-9_{}./-]*)`)
)

// restRefs answers the routes the REST sentences of an SDL description name, as "METHOD /path"
// relative to /api/v1.
func restRefs(desc string) []string {
	var out []string
	for _, s := range restSentence.FindAllString(desc, -1) {
		for _, m := range restRef.FindAllStringSubmatch(s, -1) {
			path := strings.TrimSuffix(m[2], ".")
			path = strings.TrimPrefix(path, "/api/v1")
			out = append(out, m[1]+" "+path)
		}
	}
	return out
}

// proseOf is an SDL description as an OpenAPI description: without its REST sentences, each
// paragraph on one line.
func proseOf(desc string) string {
	desc = restSentence.ReplaceAllString(desc, " ")
	paras := strings.Split(strings.TrimSpace(desc), "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paras, "\n\n")
}

// sdlField is a field of an object type of the schema, as "Type.field".
type sdlField struct {
	name        string
	description string
}

// restFieldsOf caches restFields by schema: the router asks for each route, and the scan of every
// description costs milliseconds. A schema does not change once loaded.
var restFieldsOf sync.Map // *ast.Schema → map[string][]sdlField

// restFields answers, by "METHOD /path", the fields of the schema's object types whose
// description names that route in a REST sentence. (Type descriptions may name routes too, to
// say where REST answers the type; they describe no operation.) The map is shared: read it only.
func restFields(schema *ast.Schema) map[string][]sdlField {
	if m, ok := restFieldsOf.Load(schema); ok {
		return m.(map[string][]sdlField)
	}
	m, _ := restFieldsOf.LoadOrStore(schema, scanRESTFields(schema))
	return m.(map[string][]sdlField)
}

// scanRESTFields is restFields without the cache.
func scanRESTFields(schema *ast.Schema) map[string][]sdlField {
	out := map[string][]sdlField{}
	for _, name := range slices.Sorted(maps.Keys(schema.Types)) {
		def := schema.Types[name]
		if def.Kind != ast.Object {
			continue
		}
		for _, f := range def.Fields {
			for _, ref := range restRefs(f.Description) {
				out[ref] = append(out[ref], sdlField{def.Name + "." + f.Name, f.Description})
			}
		}
	}
	return out
}
