package main

import (
	"fmt"
	"net/http"
	"strings"
)

// headerFlag is the repeatable -H 'Name: value' flag. A later -H replaces
// an earlier value (or the default) of the same header; an empty value
// removes the header.
type headerFlag http.Header

// String lists the headers as Name: value pairs.
func (h headerFlag) String() string {
	var parts []string
	for k, vs := range h {
		for _, v := range vs {
			parts = append(parts, k+": "+v)
		}
	}
	return strings.Join(parts, "; ")
}

// Set takes one 'Name: value'.
func (h headerFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, ":")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" || strings.ContainsAny(k, " \t") {
		return fmt.Errorf("want 'Name: value', got %q", s)
	}
	if v == "" {
		http.Header(h).Del(k)
	} else {
		http.Header(h).Set(k, v)
	}
	return nil
}
