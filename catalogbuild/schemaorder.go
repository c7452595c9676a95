package catalogbuild

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/openapi"
)

// apiPackage is the import path of the generated API types, whose records SchemaOrdered orders by their schema.
var apiPackage = reflect.TypeFor[api.Confidence]().PkgPath()

// SchemaOrdered returns records (a slice) as encoded JSON objects whose keys follow the OpenAPI schema of their
// type, when the type is a generated API record: generated structs order their fields by Go name, and the files
// keep the schema's order, as the document shows it, nested objects of a named schema included. The provenance
// keys (sources, confidence) of a record are left out while still empty: WithProvenance fills them. A key the
// schema does not list is an error, so the files cannot hold what the document does not describe. Records of
// another type are returned unchanged.
func SchemaOrdered(records any) (any, error) {
	v := reflect.ValueOf(records)
	if v.Kind() != reflect.Slice || v.Type().Elem().PkgPath() != apiPackage {
		return records, nil
	}
	name := v.Type().Elem().Name()
	if _, ok := openapi.Properties(name); !ok {
		return nil, fmt.Errorf("record type %s has no schema with properties in the OpenAPI document", name)
	}
	out := make([]json.RawMessage, v.Len())
	for i := range out {
		raw, err := encodeCompact(v.Index(i).Interface())
		if err != nil {
			return nil, err
		}
		if out[i], err = orderObject(raw, name, true); err != nil {
			return nil, fmt.Errorf("%s record %d: %w", name, i, err)
		}
	}
	return out, nil
}

func encodeCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// orderObject rewrites the JSON object raw with its keys in the order of schema, recursing into properties whose
// schema is a named one (objects, or arrays of them). top drops the empty provenance keys of a record.
func orderObject(raw json.RawMessage, schema string, top bool) (json.RawMessage, error) {
	props, ok := openapi.Properties(schema)
	if !ok {
		// A schema without properties (a map, an enum): Go already writes map keys sorted.
		return raw, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	var rec bytes.Buffer
	rec.WriteByte('{')
	n := 0
	for _, p := range props {
		val, ok := fields[p.Name]
		if !ok {
			continue
		}
		delete(fields, p.Name)
		if top && ((p.Name == "sources" && string(val) == "null") || (p.Name == "confidence" && string(val) == `""`)) {
			continue
		}
		if p.Ref != "" {
			var err error
			if val, err = orderValue(val, p.Ref); err != nil {
				return nil, fmt.Errorf("%s: %w", p.Name, err)
			}
		}
		if n > 0 {
			rec.WriteByte(',')
		}
		k, _ := json.Marshal(p.Name)
		rec.Write(k)
		rec.WriteByte(':')
		rec.Write(val)
		n++
	}
	for key := range fields {
		return nil, fmt.Errorf("field %s is not in the schema %s", key, schema)
	}
	rec.WriteByte('}')
	return rec.Bytes(), nil
}

// orderValue orders an object, or each object of an array, by schema; other values are returned as they are.
func orderValue(val json.RawMessage, schema string) (json.RawMessage, error) {
	t := bytes.TrimSpace(val)
	switch {
	case len(t) > 0 && t[0] == '{':
		return orderObject(t, schema, false)
	case len(t) > 0 && t[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(t, &items); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		buf.WriteByte('[')
		for i, it := range items {
			o, err := orderValue(it, schema)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(o)
		}
		buf.WriteByte(']')
		return buf.Bytes(), nil
	}
	return val, nil
}
