package tppcontacts

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/obgw/obgw/backend/store"
)

// Export formats.
const (
	FormatCSV  = "csv"
	FormatJSON = "json"
)

// Export writes every TPP's contact addresses for the bank's operators:
// CSV (a header line, then one line per TPP: tpp, the addresses joined
// with ";", when they were registered) or JSON (an array of {"tpp",
// "emailAddresses", "updatedAt"}). Only operators see this: it is served
// on the admin endpoint and by the obgw tpp-contacts export command, never
// to TPPs.
func Export(w io.Writer, format string, list []store.TPPContacts) error {
	switch format {
	case FormatCSV:
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"tpp", "emailAddresses", "updatedAt"})
		for _, c := range list {
			_ = cw.Write([]string{c.TPP, strings.Join(c.EmailAddresses, ";"), c.UpdatedAt.UTC().Format(time.RFC3339)})
		}
		cw.Flush()
		return cw.Error()
	case FormatJSON:
		type entry struct {
			TPP            string   `json:"tpp"`
			EmailAddresses []string `json:"emailAddresses"`
			UpdatedAt      string   `json:"updatedAt"`
		}
		out := make([]entry, 0, len(list))
		for _, c := range list {
			out = append(out, entry{TPP: c.TPP, EmailAddresses: c.EmailAddresses, UpdatedAt: c.UpdatedAt.UTC().Format(time.RFC3339)})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return fmt.Errorf("format must be %s or %s, not %q", FormatCSV, FormatJSON, format)
}
