package tppcontacts

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/store"
)

func TestExport(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	list := []store.TPPContacts{
		{TPP: "PSDNO-FSA-111111111", EmailAddresses: []string{"drift@a.example", "noc@a.example"}, UpdatedAt: at},
		{TPP: "PSDSE-FINA-222222", EmailAddresses: []string{`"odd,name"@b.example`}, UpdatedAt: at},
	}
	var b bytes.Buffer
	if err := Export(&b, FormatCSV, list); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 3 || rows[1][1] != "drift@a.example;noc@a.example" || rows[2][1] != `"odd,name"@b.example` || rows[2][2] != "2026-11-25T10:00:00Z" {
		t.Fatalf("CSV: %q %v", rows, err)
	}
	b.Reset()
	if err := Export(&b, FormatJSON, list); err != nil {
		t.Fatal(err)
	}
	var back []struct {
		TPP            string   `json:"tpp"`
		EmailAddresses []string `json:"emailAddresses"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back) != 2 || back[0].EmailAddresses[1] != "noc@a.example" {
		t.Fatalf("JSON: %s %v", b.String(), err)
	}
	if err := Export(&b, "xml", list); err == nil {
		t.Fatal("xml accepted")
	}
}
