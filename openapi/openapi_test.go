package openapi

import (
	"context"
	"encoding/json"
	"testing"
)

// TestDocumentValid: the document converts to JSON and is a valid OpenAPI
// 3.1 document.
func TestDocumentValid(t *testing.T) {
	b, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatal("JSON() is not JSON")
	}
	doc, err := Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
}
