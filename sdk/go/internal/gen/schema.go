package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Schema is the part of a JSON Schema (OpenAPI 3.1 dialect) the generator reads. Properties keep their
// order in the document, so the generated structs list fields as the API describes them.
type Schema struct {
	Ref                  string
	Types                []string // "type": a string or an array of strings (3.1 nullables)
	Format               string
	Description          string
	Enum                 []any
	Const                any
	HasConst             bool
	Default              any
	Minimum              *float64
	Properties           []Property
	Required             []string
	Items                *Schema
	AdditionalProperties *Schema // nil when absent or false; an empty schema for `{}` or `true`
	AnyOf                []*Schema
	OneOf                []*Schema
}

// Property is one named property of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

func (s *Schema) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("true")) {
		return nil // `true` accepts anything: an empty schema
	}
	var raw struct {
		Ref                  string            `json:"$ref"`
		Type                 json.RawMessage   `json:"type"`
		Format               string            `json:"format"`
		Description          string            `json:"description"`
		Enum                 []any             `json:"enum"`
		Const                json.RawMessage   `json:"const"`
		Default              any               `json:"default"`
		Minimum              *float64          `json:"minimum"`
		Properties           orderedProperties `json:"properties"`
		Required             []string          `json:"required"`
		Items                *Schema           `json:"items"`
		AdditionalProperties json.RawMessage   `json:"additionalProperties"`
		AnyOf                []*Schema         `json:"anyOf"`
		OneOf                []*Schema         `json:"oneOf"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*s = Schema{Ref: raw.Ref, Format: raw.Format, Description: raw.Description, Enum: raw.Enum,
		Default: raw.Default, Minimum: raw.Minimum, Properties: raw.Properties, Required: raw.Required,
		Items: raw.Items, AnyOf: raw.AnyOf, OneOf: raw.OneOf}
	if len(raw.Type) > 0 {
		if raw.Type[0] == '[' {
			if err := json.Unmarshal(raw.Type, &s.Types); err != nil {
				return err
			}
		} else {
			var one string
			if err := json.Unmarshal(raw.Type, &one); err != nil {
				return err
			}
			s.Types = []string{one}
		}
	}
	if len(raw.Const) > 0 {
		s.HasConst = true
		if err := json.Unmarshal(raw.Const, &s.Const); err != nil {
			return err
		}
	}
	if ap := bytes.TrimSpace(raw.AdditionalProperties); len(ap) > 0 && !bytes.Equal(ap, []byte("false")) {
		s.AdditionalProperties = &Schema{}
		if err := json.Unmarshal(ap, s.AdditionalProperties); err != nil {
			return err
		}
	}
	return nil
}

// orderedProperties decodes a JSON object of schemas keeping its key order.
type orderedProperties []Property

func (o *orderedProperties) UnmarshalJSON(data []byte) error {
	return eachKey(data, func(key string, dec *json.Decoder) error {
		var s Schema
		if err := dec.Decode(&s); err != nil {
			return err
		}
		*o = append(*o, Property{Name: key, Schema: &s})
		return nil
	})
}

// eachKey walks a JSON object in document order, handing each key and a decoder positioned at its value.
func eachKey(data []byte, value func(key string, dec *json.Decoder) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("want a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if err := value(tok.(string), dec); err != nil {
			return err
		}
	}
	return nil
}

// nonNull returns the schema without its null alternative, and whether null was one:
// `type: [X, "null"]` and `anyOf: [X, {type: null}]` are both nullable X.
func (s *Schema) nonNull() (*Schema, bool) {
	if len(s.Types) > 1 {
		var rest []string
		for _, t := range s.Types {
			if t != "null" {
				rest = append(rest, t)
			}
		}
		if len(rest) < len(s.Types) {
			c := *s
			c.Types = rest
			return &c, true
		}
	}
	if len(s.AnyOf) == 2 {
		for i, alt := range s.AnyOf {
			if len(alt.Types) == 1 && alt.Types[0] == "null" {
				other := *s.AnyOf[1-i]
				if other.Description == "" {
					other.Description = s.Description
				}
				return &other, true
			}
		}
	}
	return s, false
}

func (s *Schema) isType(t string) bool { return len(s.Types) == 1 && s.Types[0] == t }

func (s *Schema) isRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

// Document is the part of an OpenAPI 3.1 document the generator reads.
type Document struct {
	Components struct {
		Schemas orderedProperties `json:"schemas"`
	} `json:"components"`
	Paths orderedPaths `json:"paths"`
}

// Operation is one method of one path.
type Operation struct {
	Method      string
	Path        string
	OperationID string      `json:"operationId"`
	Summary     string      `json:"summary"`
	Parameters  []Parameter `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Schema *Schema `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
}

// Parameter is a query, path or header parameter.
type Parameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Required    bool    `json:"required"`
	Description string  `json:"description"`
	Schema      *Schema `json:"schema"`
}

type orderedPaths []Operation

func (o *orderedPaths) UnmarshalJSON(data []byte) error {
	return eachKey(data, func(path string, dec *json.Decoder) error {
		var methods map[string]json.RawMessage
		if err := dec.Decode(&methods); err != nil {
			return err
		}
		for _, m := range []string{"get", "put", "post", "delete", "patch"} {
			if raw, ok := methods[m]; ok {
				var op Operation
				if err := json.Unmarshal(raw, &op); err != nil {
					return fmt.Errorf("%s %s: %w", m, path, err)
				}
				op.Method, op.Path = strings.ToUpper(m), path
				*o = append(*o, op)
			}
		}
		return nil
	})
}
