package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// kind says what a named Go type is, which decides how an optional field of that type is written.
type kind int

const (
	kindScalar kind = iota // string, int, bool, enum: the zero value means "not sent"
	kindStruct             // optional structs are pointers (encoding/json cannot omit a struct value)
	kindRef                // slices, maps, any: nil already means "absent" or null
)

// generator turns schemas into Go declarations, naming inline types after where they appear.
type generator struct {
	doc      *Document
	decls    []string               // emitted declarations, in order
	kinds    map[string]kind        // named type -> kind
	enumSigs map[string]string      // enum value list -> type name, so one enum is one type
	shapes   map[string]string      // struct shape -> type name, so identical inline objects share a type
	unions   bool                   // whether the union helpers are needed
	sent     map[*Schema]string     // unions the caller sends (request bodies) -> their tag property
	variants map[string]sentVariant // struct name -> the tag it writes as an alternative of a sent union
}

func newGenerator(doc *Document) *generator {
	return &generator{doc: doc, kinds: map[string]kind{}, enumSigs: map[string]string{}, shapes: map[string]string{},
		sent: map[*Schema]string{}, variants: map[string]sentVariant{}}
}

func (g *generator) emit(format string, args ...any) {
	g.decls = append(g.decls, fmt.Sprintf(format, args...))
}

func refName(ref string) string { return preferred(goName(ref[strings.LastIndex(ref, "/")+1:])) }

func (g *generator) component(name string) *Schema {
	for _, p := range g.doc.Components.Schemas {
		if preferred(goName(p.Name)) == name {
			return p.Schema
		}
	}
	return nil
}

// typeOf returns the Go type of a schema; inline enums, objects and unions become named types called `name`.
func (g *generator) typeOf(s *Schema, name string) string {
	inner, nullable := s.nonNull()
	t := g.nonNullType(inner, name)
	if nullable && !strings.HasPrefix(t, "*") && g.kindOf(t) != kindRef {
		return "*" + t
	}
	return t
}

func (g *generator) kindOf(t string) kind {
	switch {
	case strings.HasPrefix(t, "[]"), strings.HasPrefix(t, "map["), t == "any":
		return kindRef
	case t == "time.Time":
		return kindStruct
	}
	if k, ok := g.kinds[t]; ok {
		return k
	}
	return kindScalar
}

func (g *generator) nonNullType(s *Schema, name string) string {
	switch {
	case s.Ref != "":
		return refName(s.Ref)
	case len(s.Enum) > 0:
		return g.enumType([]string{preferred(name)}, s)
	case len(s.AnyOf) > 0 || len(s.OneOf) > 0:
		return g.unionType(preferred(name), s)
	case len(s.Types) != 1:
		return "any" // several JSON types (a scalar) or no constraint at all
	}
	switch s.Types[0] {
	case "string":
		if s.Format == "date-time" {
			return "time.Time"
		}
		return "string"
	case "integer":
		return "int"
	case "number":
		return "float64"
	case "boolean":
		return "bool"
	case "array":
		if s.Items == nil {
			return "[]any"
		}
		return "[]" + g.typeOf(s.Items, name+"Item")
	case "object":
		if len(s.Properties) > 0 {
			return g.structType(preferred(name), s)
		}
		if s.AdditionalProperties != nil {
			return "map[string]" + g.typeOf(s.AdditionalProperties, name+"Value")
		}
		return "map[string]any"
	}
	return "any"
}

// enumType declares a string type with one constant per value; the same values reuse one type.
// The first name not yet taken is used.
func (g *generator) enumType(names []string, s *Schema) string {
	var values []string
	for _, v := range s.Enum {
		str, ok := v.(string)
		if !ok {
			return "any"
		}
		values = append(values, str)
	}
	sig := strings.Join(values, "\x00")
	if existing, ok := g.enumSigs[sig]; ok {
		return existing
	}
	name := names[len(names)-1]
	for i := len(names) - 1; i >= 0; i-- {
		if _, taken := g.kinds[names[i]]; !taken {
			name = names[i]
		}
	}
	g.enumSigs[sig] = name
	g.kinds[name] = kindScalar
	var b strings.Builder
	fmt.Fprintf(&b, "%stype %s string\n\nconst (\n", comment(s.Description, name+" is one of the values the API names."), name)
	for _, v := range values {
		fmt.Fprintf(&b, "\t%s%s %s = %q\n", name, goName(v), name, v)
	}
	fmt.Fprintf(&b, ")\n\n// %sValues lists every %s the API defines.\nfunc %sValues() []%s {\n\treturn []%s{", name, name, name, name, name)
	for i, v := range values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name + goName(v))
	}
	b.WriteString("}\n}")
	g.emit("%s", b.String())
	return name
}

// structType declares a struct for an object schema. Required fields are values (pointers when the API
// may send null); optional ones carry omitempty, and are pointers when their zero value would be sent.
func (g *generator) structType(name string, s *Schema) string {
	fields := make([]string, 0, len(s.Properties))
	variant, isVariant := g.variants[name]
	for _, p := range s.Properties {
		if isVariant && p.Name == variant.prop {
			continue // the type says it; MarshalJSON writes it
		}
		fname := goName(p.Name)
		var t string
		if inner, _ := p.Schema.nonNull(); len(inner.Enum) > 0 && !genericPropertyNames[p.Name] {
			// An enum is named after its property (Modality, SubjectType) wherever it first appears.
			t = g.enumType([]string{preferred(fname), preferred(name + fname)}, inner)
			if t != "any" {
				if _, nullable := p.Schema.nonNull(); nullable {
					t = "*" + t
				}
			}
		} else {
			t = g.typeOf(p.Schema, name+fname)
		}
		tag := p.Name
		if !s.isRequired(p.Name) {
			inner, _ := p.Schema.nonNull()
			if !strings.HasPrefix(t, "*") && (g.kindOf(t) == kindStruct || t == "float64" && inner.Default == nil) {
				t = "*" + t // an optional float (max_distance: 0 means something) or struct must be able to be absent
			}
			tag += ",omitempty"
		}
		fields = append(fields, fmt.Sprintf("%s\t%s %s `json:%q`", comment(p.Schema.Description, ""), fname, t, tag))
	}
	shape := strings.Join(fields, "\n")
	if isVariant { // a type of its own, whatever its shape: it implements its union
		g.kinds[name] = kindStruct
		g.emit("%stype %s struct {\n%s\n}\n\n%s", comment(s.Description, ""), name, shape, sentVariantMarshal(name, variant))
		return name
	}
	if existing, ok := g.shapes[shape]; ok {
		return existing
	}
	g.shapes[shape] = name
	g.kinds[name] = kindStruct
	g.emit("%stype %s struct {\n%s\n}", comment(s.Description, ""), name, shape)
	return name
}

// unionType handles anyOf/oneOf: a union the caller sends is a sealed interface (sent.go); alternatives
// told apart by a `const` property become a tagged union;
// references to object schemas become a union chosen by the required keys present; inline objects
// without a tag merge into one struct whose fields are all optional; anything else is `any`.
func (g *generator) unionType(name string, s *Schema) string {
	if tag, ok := g.sent[s]; ok {
		return g.sentUnion(name, s, tag)
	}
	alts := s.OneOf
	if len(alts) == 0 {
		alts = s.AnyOf
	}
	if tag := discriminator(alts); tag != "" {
		return g.taggedUnion(name, s, alts, tag)
	}
	allRefs, allInline := true, true
	for _, a := range alts {
		if a.Ref == "" {
			allRefs = false
		} else {
			allInline = false
		}
		if a.Ref == "" && !a.isType("object") {
			return "any"
		}
	}
	switch {
	case allRefs:
		return g.keyedUnion(name, s, alts)
	case allInline:
		merged := &Schema{Types: []string{"object"}, Description: s.Description}
		for _, a := range alts {
			merged.Properties = append(merged.Properties, a.Properties...)
		}
		return g.structType(name, merged)
	}
	return "any"
}

// discriminator is the property every alternative fixes to a different const, if there is one.
func discriminator(alts []*Schema) string {
	if len(alts) < 2 {
		return ""
	}
	for _, p := range alts[0].Properties {
		if !p.Schema.HasConst {
			continue
		}
		ok := true
		for _, a := range alts[1:] {
			found := false
			for _, q := range a.Properties {
				found = found || (q.Name == p.Name && q.Schema.HasConst)
			}
			ok = ok && found
		}
		if ok {
			return p.Name
		}
	}
	return ""
}

func constOf(s *Schema, prop string) string {
	for _, p := range s.Properties {
		if p.Name == prop {
			return fmt.Sprint(p.Schema.Const)
		}
	}
	return ""
}

func (g *generator) taggedUnion(name string, s *Schema, alts []*Schema, tag string) string {
	g.unions = true
	g.kinds[name] = kindStruct
	var fields, decode, encode strings.Builder
	for _, a := range alts {
		value := constOf(a, tag)
		variant := g.structType(preferred(name+goName(value)), a)
		fmt.Fprintf(&fields, "\t%s *%s\n", goName(value), variant)
		fmt.Fprintf(&decode, "\tcase %q:\n\t\tu.%s = new(%s)\n\t\treturn json.Unmarshal(data, u.%s)\n", value, goName(value), variant, goName(value))
		fmt.Fprintf(&encode, "\tcase u.%s != nil:\n\t\treturn json.Marshal(u.%s)\n", goName(value), goName(value))
	}
	doc := comment(s.Description, "") + fmt.Sprintf("//\n// %s is a union told apart by %q: exactly one field is set.\n", name, tag)
	g.emit(`%stype %s struct {
%s}

func (u *%s) UnmarshalJSON(data []byte) error {
	var probe struct {
		Tag string `+"`json:%q`"+`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	*u = %s{}
	switch probe.Tag {
%s	}
	return fmt.Errorf("engram: %s: unknown %s %%q", probe.Tag)
}

func (u %s) MarshalJSON() ([]byte, error) {
	switch {
%s	}
	return []byte("null"), nil
}`, doc, name, fields.String(), name, tag, name, decode.String(), name, tag, name, encode.String())
	return name
}

func (g *generator) keyedUnion(name string, s *Schema, alts []*Schema) string {
	g.unions = true
	g.kinds[name] = kindStruct
	names := make([]string, len(alts))
	for i, a := range alts {
		names[i] = refName(a.Ref)
	}
	prefix := commonPrefix(names)
	var fields, decode, encode strings.Builder
	// Alternatives with more required keys are tried first, so a narrower shape never shadows a wider one.
	order := make([]int, len(alts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return len(g.component(names[order[a]]).Required) > len(g.component(names[order[b]]).Required)
	})
	for i, n := range names {
		fmt.Fprintf(&fields, "\t%s *%s\n", strings.TrimPrefix(n, prefix), n)
		fmt.Fprintf(&encode, "\tcase u.%s != nil:\n\t\treturn json.Marshal(u.%s)\n", strings.TrimPrefix(n, prefix), strings.TrimPrefix(n, prefix))
		_ = i
	}
	for _, i := range order {
		n, field := names[i], strings.TrimPrefix(names[i], prefix)
		keys, _ := json.Marshal(g.component(n).Required)
		fmt.Fprintf(&decode, "\tif hasKeys(keys, %s...) {\n\t\tu.%s = new(%s)\n\t\treturn json.Unmarshal(data, u.%s)\n\t}\n",
			goStrings(keys), field, n, field)
	}
	doc := comment(s.Description, "") + fmt.Sprintf("// %s is one of %s: exactly one field is set, chosen by the keys the answer holds.\n", name, strings.Join(names, ", "))
	g.emit(`%stype %s struct {
%s}

func (u *%s) UnmarshalJSON(data []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return err
	}
	*u = %s{}
%s	return fmt.Errorf("engram: %s matches none of its alternatives")
}

func (u %s) MarshalJSON() ([]byte, error) {
	switch {
%s	}
	return []byte("null"), nil
}`, doc, name, fields.String(), name, name, decode.String(), name, name, encode.String())
	return name
}

func goStrings(jsonList []byte) string {
	return "[]string{" + strings.Trim(string(jsonList), "[]") + "}"
}

func commonPrefix(names []string) string {
	if len(names) < 2 {
		return ""
	}
	p := names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, p) {
			p = p[:len(p)-1]
		}
	}
	for _, n := range names {
		if n == p {
			return ""
		}
	}
	return p
}

// comment renders a description as a Go doc comment, or the fallback when there is none.
func comment(description, fallback string) string {
	if description == "" {
		description = fallback
	}
	if description == "" {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(description), "\n") {
		b.WriteString("// " + line + "\n")
	}
	return b.String()
}
