package accesslog

import (
	"fmt"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/logging"
	"go.uber.org/zap/zapcore"
)

// Filter rewrites one field of a log entry; Caddy's log field filter
// modules (logging.LogFieldFilter) have this method.
type Filter interface {
	Filter(zapcore.Field) zapcore.Field
}

// node is one step of a filtered path: a filter for the field itself, or
// children for the fields of the object it names (a field with a filter
// is replaced whole, so its children are never reached, as in Caddy).
type node struct {
	filter Filter
	// is says which filter it is where the encoder writes the result
	// itself: deleted (nothing is written) or hashed.
	is       filterKind
	children map[string]*node
}

type filterKind uint8

const (
	otherFilter filterKind = iota
	deleted
	hashed
)

// compile turns filters keyed by path ("request>headers>Signature", the
// keys of an object joined with ">") into the tree the encoder walks.
// Caddy's hash filter is replaced by Hash, which writes the same.
func compile(filters map[string]Filter) (*node, error) {
	root := &node{}
	for path, f := range filters {
		if f == nil {
			return nil, fmt.Errorf("log field %q: no filter", path)
		}
		n := root
		for key := range strings.SplitSeq(path, ">") {
			if key == "" {
				return nil, fmt.Errorf("log field %q: empty key", path)
			}
			if n.children == nil {
				n.children = make(map[string]*node)
			}
			c, ok := n.children[key]
			if !ok {
				c = &node{}
				n.children[key] = c
			}
			n = c
		}
		switch f.(type) {
		case *logging.HashFilter, Hash:
			f, n.is = Hash{}, hashed
		case *logging.DeleteFilter, logging.DeleteFilter:
			n.is = deleted
		}
		n.filter = f
	}
	return root, nil
}

// child is the node of field key under n, or nil when nothing at or below
// that field is filtered.
func (n *node) child(key string) *node {
	if n == nil {
		return nil
	}
	return n.children[key]
}
