package main

import (
	"fmt"
	"strings"
)

// A union the caller sends (a request body's oneOf of component schemas told apart by a const property,
// as a memory batch's operations by "op") becomes a sealed interface that each alternative's struct
// implements: the caller writes []MemoryOperation{UpsertEntityOperation{...}, AssertFactOperation{...}}.
// The struct leaves the tag out (its type says it) and its MarshalJSON writes it. A union the service
// answers stays a struct with one pointer per alternative, which a decoder can fill.

// sentVariant is the tag a component struct writes when it is sent as one alternative of a union.
type sentVariant struct{ prop, value string }

// collectSentUnions finds the sent unions of the request bodies before any type is declared, because the
// alternatives' structs (components) are declared first and must already leave their tag out.
func (g *generator) collectSentUnions() {
	seen := map[*Schema]bool{}
	var walk func(s *Schema)
	walk = func(s *Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if tag, ok := g.sentTag(s); ok {
			g.sent[s] = tag
			for _, a := range s.OneOf {
				g.variants[refName(a.Ref)] = sentVariant{tag, constOf(g.resolve(a), tag)}
			}
		}
		for _, p := range s.Properties {
			walk(p.Schema)
		}
		walk(s.Items)
		walk(s.AdditionalProperties)
	}
	for _, op := range g.doc.Paths {
		if op.RequestBody != nil {
			if media, ok := op.RequestBody.Content["application/json"]; ok {
				walk(media.Schema)
			}
		}
	}
}

// sentTag is the tag of a oneOf whose alternatives are all references told apart by a const property.
func (g *generator) sentTag(s *Schema) (string, bool) {
	if len(s.OneOf) < 2 {
		return "", false
	}
	alts := make([]*Schema, len(s.OneOf))
	for i, a := range s.OneOf {
		if a.Ref == "" {
			return "", false
		}
		alts[i] = g.resolve(a)
	}
	tag := discriminator(alts)
	return tag, tag != ""
}

func (g *generator) resolve(s *Schema) *Schema {
	if s.Ref == "" {
		return s
	}
	if c := g.component(refName(s.Ref)); c != nil {
		return c
	}
	return s
}

// sentUnion declares the interface of a sent union and makes each alternative implement it.
func (g *generator) sentUnion(name string, s *Schema, tag string) string {
	g.kinds[name] = kindRef // an interface: nil is absent
	names := make([]string, len(s.OneOf))
	for i, a := range s.OneOf {
		names[i] = refName(a.Ref)
	}
	marker := "is" + name
	var b strings.Builder
	b.WriteString(comment(s.Description, ""))
	fmt.Fprintf(&b, "// %s is one of %s, each sent with its %q.\ntype %s interface {\n\t%s()\n}\n", name,
		strings.Join(names, ", "), tag, name, marker)
	for _, n := range names {
		fmt.Fprintf(&b, "\nfunc (%s) %s() {}\n", n, marker)
	}
	g.emit("%s", strings.TrimRight(b.String(), "\n"))
	return name
}

// sentVariantMarshal is the MarshalJSON of an alternative of a sent union: its fields and its tag.
func sentVariantMarshal(name string, v sentVariant) string {
	return fmt.Sprintf(`// MarshalJSON writes the %s with its %q, %q.
func (v %s) MarshalJSON() ([]byte, error) {
	type fields %s
	return json.Marshal(struct {
		Tag string `+"`json:%q`"+`
		fields
	}{%q, fields(v)})
}`, name, v.prop, v.value, name, name, v.prop, v.value)
}
