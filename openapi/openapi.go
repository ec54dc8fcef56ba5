package openapi

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// source is the document as written.
//
//go:embed obgw.yaml
var source []byte

// YAML returns the document as written. The caller must not modify it.
func YAML() []byte { return source }

// JSON returns the document as JSON, what /v1/openapi.json serves: the
// YAML with its anchors and merge keys resolved, members in the order
// written. It is computed once; the caller must not modify it.
func JSON() ([]byte, error) { return jsonOnce() }

var jsonOnce = sync.OnceValues(func() ([]byte, error) { return toJSON(source) })

// Load parses and validates the document, anew on every call, so that the
// caller may change what it gets.
func Load(ctx context.Context) (*openapi3.T, error) {
	b, err := JSON()
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromData(b)
	if err != nil {
		return nil, fmt.Errorf("openapi: loading obgw.yaml: %w", err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("openapi: obgw.yaml is not a valid OpenAPI document: %w", err)
	}
	return doc, nil
}

// toJSON converts a YAML document to JSON.
func toJSON(src []byte) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, fmt.Errorf("openapi: obgw.yaml: %w", err)
	}
	var buf bytes.Buffer
	if err := writeNode(&buf, &root); err != nil {
		return nil, fmt.Errorf("openapi: obgw.yaml: %w", err)
	}
	return buf.Bytes(), nil
}

// writeNode writes n as JSON.
func writeNode(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("line %d: a document holds one value", n.Line)
		}
		return writeNode(buf, n.Content[0])
	case yaml.AliasNode:
		return writeNode(buf, n.Alias)
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeNode(buf, c); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case yaml.MappingNode:
		return writeMapping(buf, n)
	case yaml.ScalarNode:
		return writeScalar(buf, n)
	}
	return fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

// writeMapping writes a mapping as a JSON object. A merge key (<<) stands
// for the members of the mapping it names (or of each in a list), except
// those the mapping itself has, which win as YAML says; a member named
// twice is an error.
func writeMapping(buf *bytes.Buffer, n *yaml.Node) error {
	own := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !isMerge(k) {
			if own[k.Value] {
				return fmt.Errorf("line %d: %q twice", k.Line, k.Value)
			}
			own[k.Value] = true
		}
	}
	buf.WriteByte('{')
	first := true
	member := func(k string, v *yaml.Node) error {
		if !first {
			buf.WriteByte(',')
		}
		first = false
		writeString(buf, k)
		buf.WriteByte(':')
		return writeNode(buf, v)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !isMerge(k) {
			if err := member(k.Value, v); err != nil {
				return err
			}
			continue
		}
		merged := []*yaml.Node{v}
		if resolve(v).Kind == yaml.SequenceNode {
			merged = resolve(v).Content
		}
		for _, m := range merged {
			m = resolve(m)
			if m.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: << names no mapping", k.Line)
			}
			for j := 0; j+1 < len(m.Content); j += 2 {
				mk := m.Content[j]
				if isMerge(mk) || own[mk.Value] {
					continue
				}
				own[mk.Value] = true
				if err := member(mk.Value, m.Content[j+1]); err != nil {
					return err
				}
			}
		}
	}
	buf.WriteByte('}')
	return nil
}

func isMerge(k *yaml.Node) bool { return k.Kind == yaml.ScalarNode && k.Tag == "!!merge" }

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// writeScalar writes a scalar as the JSON value of its resolved YAML tag.
func writeScalar(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!str":
		writeString(buf, n.Value)
	case "!!null":
		buf.WriteString("null")
	case "!!bool":
		b, err := strconv.ParseBool(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: boolean %q: write true or false", n.Line, n.Value)
		}
		buf.WriteString(strconv.FormatBool(b))
	case "!!int":
		i, ok := new(big.Int).SetString(n.Value, 0)
		if !ok {
			return fmt.Errorf("line %d: integer %q", n.Line, n.Value)
		}
		buf.WriteString(i.String())
	case "!!float":
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return fmt.Errorf("line %d: number %q", n.Line, n.Value)
		}
		out, err := json.Marshal(f)
		if err != nil {
			return fmt.Errorf("line %d: number %q: %v", n.Line, n.Value, err)
		}
		buf.Write(out)
	default:
		return fmt.Errorf("line %d: %s %q has no JSON form", n.Line, n.ShortTag(), n.Value)
	}
	return nil
}

func writeString(buf *bytes.Buffer, s string) {
	out, _ := json.Marshal(s) // a string always marshals
	buf.Write(out)
}
