package main

import (
	"fmt"
	"strings"
)

// scopeParams are carried by the owner and partition handles, not by each call's params.
var scopeParams = map[string]bool{"entity_id": true, "partition": true}

// argumentParams are query parameters that the SDK's method takes as an argument of its own, as it takes
// a path's id (Owner.Graph's start node), so they are left out of the operation's params struct.
var argumentParams = map[string]map[string]bool{"getGraph": {"memory_entity_id": true}}

// requestBody declares <OperationId>Request for an inline JSON body with properties.
func (g *generator) requestBody(op Operation) {
	if op.RequestBody == nil {
		return
	}
	media, ok := op.RequestBody.Content["application/json"]
	if !ok || media.Schema == nil || media.Schema.Ref != "" || len(media.Schema.Properties) == 0 {
		return
	}
	s := *media.Schema
	if s.Description == "" {
		s.Description = fmt.Sprintf("%sRequest is the body of %s %s (%s).", goName(op.OperationID), op.Method, op.Path, op.OperationID)
	}
	g.structType(goName(op.OperationID)+"Request", &s)
}

// params declares <OperationId>Params for the query string of a GET or DELETE, with an encode method.
// Zero values are not sent, so the service's defaults apply.
func (g *generator) params(op Operation) {
	if op.Method != "GET" && op.Method != "DELETE" {
		return
	}
	name := preferred(goName(op.OperationID) + "Params")
	var fields, encode strings.Builder
	n := 0
	for _, p := range op.Parameters {
		if p.In != "query" || scopeParams[p.Name] || argumentParams[op.OperationID][p.Name] {
			continue
		}
		n++
		fname := goName(p.Name)
		t := g.typeOf(p.Schema, fname)
		if t == "float64" && !p.Required {
			t = "*float64"
		}
		description := p.Description
		if description == "" {
			description = p.Schema.Description
		}
		fmt.Fprintf(&fields, "%s\t%s %s\n", comment(description, ""), fname, t)
		set := func(cond, value string) {
			if p.Required || cond == "true" {
				fmt.Fprintf(&encode, "\tq.Set(%q, %s)\n", p.Name, value)
				return
			}
			fmt.Fprintf(&encode, "\tif %s {\n\t\tq.Set(%q, %s)\n\t}\n", cond, p.Name, value)
		}
		switch t {
		case "string":
			set(fmt.Sprintf("p.%s != \"\"", fname), "p."+fname)
		case "int":
			set(fmt.Sprintf("p.%s != 0", fname), fmt.Sprintf("strconv.Itoa(p.%s)", fname))
		case "bool":
			set("p."+fname, "\"true\"")
		case "*float64":
			set(fmt.Sprintf("p.%s != nil", fname), fmt.Sprintf("strconv.FormatFloat(*p.%s, 'g', -1, 64)", fname))
		case "float64":
			set("true", fmt.Sprintf("strconv.FormatFloat(p.%s, 'g', -1, 64)", fname))
		case "time.Time":
			set(fmt.Sprintf("!p.%s.IsZero()", fname), fmt.Sprintf("p.%s.Format(time.RFC3339Nano)", fname))
		default: // a string enum
			set(fmt.Sprintf("p.%s != \"\"", fname), fmt.Sprintf("string(p.%s)", fname))
		}
	}
	if n == 0 {
		return
	}
	g.emit(`// %s is the query string of %s %s (%s). Zero values are not sent: the service's defaults apply.
type %s struct {
%s}

func (p *%s) encode(q url.Values) {
	if p == nil {
		return
	}
%s}`, name, op.Method, op.Path, op.OperationID, name, fields.String(), name, encode.String())
}

// operations declares one descriptor per operation (op<OperationId>) and the list of them all.
func (g *generator) operations() {
	var vars, list strings.Builder
	for _, op := range g.doc.Paths {
		idempotent := false
		for _, p := range op.Parameters {
			idempotent = idempotent || (p.In == "header" && strings.EqualFold(p.Name, "Idempotency-Key"))
		}
		fmt.Fprintf(&vars, "\top%s = operation{id: %q, method: %q, path: %q, idempotent: %t}\n",
			goName(op.OperationID), op.OperationID, op.Method, op.Path, idempotent)
		fmt.Fprintf(&list, "\top%s,\n", goName(op.OperationID))
	}
	g.emit(`// operation is one route of the document; idempotent ones take an Idempotency-Key.
type operation struct {
	id, method, path string
	idempotent       bool
}

var (
%s)

// operations lists every operation of the document.
var operations = []operation{
%s}`, vars.String(), list.String())
}
