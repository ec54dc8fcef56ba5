package tppcontext

import (
	"context"
	"testing"
)

// TestIssuedOnlyForItsToken: the handed-off context answers only for the
// token it was issued as; any other token, or none handed off, must be
// verified.
func TestIssuedOnlyForItsToken(t *testing.T) {
	c := &Context{TPP: "PSDNO-FSA-987654321", RequestID: "r1"}
	ctx := WithIssued(context.Background(), "tok-1", c)
	if got, ok := Issued(ctx, "tok-1"); !ok || got != c {
		t.Fatalf("Issued(tok-1) = %v, %v; want the handed-off context", got, ok)
	}
	for _, tok := range []string{"tok-2", ""} {
		if _, ok := Issued(ctx, tok); ok {
			t.Errorf("Issued(%q) answered for another token", tok)
		}
	}
	if _, ok := Issued(context.Background(), "tok-1"); ok {
		t.Error("Issued answered without a handed-off context")
	}
	if _, ok := Issued(WithIssued(context.Background(), "", c), ""); ok {
		t.Error("an empty token was handed off")
	}
}
