package registry

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/obgw/obgw/gateway/refresh"
	"github.com/obgw/obgw/gateway/registry/ebatest"
)

// ebaInstitutions are the register's cases: a PI in Norway, a withdrawn
// AISP, a Swedish PI passported to Norway for payment initiation only, a
// PI withdrawn and authorised again, a Finnish EMI whose number has a
// hyphen, a branch, and a Norwegian PI granted nothing in Norway.
var ebaInstitutions = []ebatest.Institution{
	{Authority: "NO_FSA", Type: "PSD_PI", Reference: "987654321", Names: []string{"Test TPP AS"}, Dates: []string{"2019-01-01"},
		Services: map[string][]string{"NO": {"PS_070", "PS_080", "PS_03A"}}},
	{Authority: "NO_FSA", Type: "PSD_AISP", Reference: "987654324", Names: []string{"Test Withdrawn TPP AS"}, Dates: []string{"2019-01-01", "2025-06-30"},
		Services: map[string][]string{"NO": {"PS_080"}}},
	{Authority: "SE_FINA", Type: "PSD_PI", Reference: "55667788", Names: []string{"Betal AB", "Betal AB"}, Dates: []string{"2020-02-02"},
		Services: map[string][]string{"SE": {"PS_070", "PS_080"}, "NO": {"PS_070"}}},
	{Authority: "NO_FSA", Type: "PSD_PI", Reference: "912345678", Names: []string{"Igjen AS"}, Dates: []string{"2019-01-01", "2020-01-01", "2021-01-01"},
		Services: map[string][]string{"NO": {"PS_080"}}},
	{Authority: "FI_FIN-FSA", Type: "PSD_EMI", Reference: "1234567-8", Names: []string{"Maksu Oy"}, Dates: []string{"2018-05-05"},
		Services: map[string][]string{"NO": {"PS_080", "PS_05A"}}},
	{Authority: "NO_FSA", Type: "PSD_BR", Reference: "923456789", Names: []string{"Filial NUF"}, Dates: []string{"2019-01-01"},
		Services: map[string][]string{"NO": {"PS_070", "PS_080"}}},
	{Authority: "NO_FSA", Type: "PSD_PI", Reference: "934567890", Names: []string{"Hjemme AS"}, Dates: []string{"2019-01-01"},
		Services: map[string][]string{"SE": {"PS_070", "PS_080"}}},
}

func ebaExport(t testing.TB, agents int) []byte {
	var b bytes.Buffer
	if err := ebatest.Write(&b, ebaInstitutions, agents); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestEBARegister: a QSealC's organizationIdentifier is found by its
// country and number, with the status ENT_AUT gives and the roles the
// services listed for the bank's country grant; agents and branches are
// not TPPs.
func TestEBARegister(t *testing.T) {
	reg, err := ParseEBA(bytes.NewReader(ebaExport(t, 50)), "NO")
	if err != nil {
		t.Fatal(err)
	}
	if reg.Len() != 6 {
		t.Fatalf("%d institutions, want 6 (no branch, no agent)", reg.Len())
	}
	cases := []struct {
		orgID, name, status string
		roles               []string
	}{
		{"PSDNO-FSA-987654321", "Test TPP AS", StatusAuthorised, []string{"PSP_AI", "PSP_PI"}},
		{"PSDNO-FSA-987654324", "Test Withdrawn TPP AS", StatusWithdrawn, []string{"PSP_AI"}},
		{"PSDSE-FINA-55667788", "Betal AB", StatusAuthorised, []string{"PSP_PI"}},
		{"PSDNO-FSA-912345678", "Igjen AS", StatusAuthorised, []string{"PSP_AI"}},
		// The certificate's NCA id (FINFSA) is not the register's
		// authority code (FI_FIN-FSA); the number compares without its
		// hyphen.
		{"PSDFI-FINFSA-12345678", "Maksu Oy", StatusAuthorised, []string{"PSP_AI", "PSP_IC"}},
		{"PSDNO-FSA-934567890", "Hjemme AS", StatusAuthorised, nil},
	}
	for _, c := range cases {
		e, err := reg.Lookup(context.Background(), c.orgID)
		if err != nil {
			t.Fatalf("%s: %v", c.orgID, err)
		}
		if e.OrganizationIdentifier != c.orgID || e.Name != c.name || e.Status != c.status || !reflect.DeepEqual(e.Roles, c.roles) {
			t.Fatalf("%s = %+v, want %s %s %v", c.orgID, e, c.name, c.status, c.roles)
		}
	}
	for _, orgID := range []string{
		"PSDNO-FSA-923456789",  // a branch
		"PSDFR-ACPR-400000007", // an agent
		"PSDDK-DFSA-987654321", // the number in another country
		"PSDNO-FSA-000000000",
		"not an identifier",
	} {
		if _, err := reg.Lookup(context.Background(), orgID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("%s: %v, want not registered", orgID, err)
		}
	}

	// Stored and read back, it answers the same.
	raw, err := reg.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalEBA(raw)
	if err != nil || back.Len() != reg.Len() || back.Country() != "NO" {
		t.Fatalf("read back: %v", err)
	}
	for _, c := range cases {
		a, _ := reg.Lookup(context.Background(), c.orgID)
		b, _ := back.Lookup(context.Background(), c.orgID)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s read back = %+v, want %+v", c.orgID, b, a)
		}
	}
}

// TestEBARegisterRefusals: what is not the export is refused with a
// reason, never read as an empty register.
func TestEBARegisterRefusals(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"an object", `{"a":1}`, "not a JSON array"},
		{"entities at the top level", `[{"CA_OwnerID":"NO_FSA"}]`, "not the EBA export's shape"},
		{"no institutions", `[[{"Disclaimer":"x"}],[]]`, "no institutions"},
		{"cut short", string(ebaExport(t, 3))[:400], "EBA register"},
		{"a property that is an object", `[[],[{"CA_OwnerID":"NO_FSA","EntityType":"PSD_PI","Properties":[{"ENT_NAT_REF_COD":{"x":1}}]}]]`, "ENT_NAT_REF_COD"},
	} {
		_, err := ParseEBA(strings.NewReader(tc.doc), "NO")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// BenchmarkParseEBA reads an export of the real register's size (300,000
// records, nine in ten of them agents) from a file, and reports the peak
// heap while reading and the heap the register keeps.
func BenchmarkParseEBA(b *testing.B) {
	path := filepath.Join(b.TempDir(), "eba.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := ebatest.Write(f, ebaInstitutions, 300_000-len(ebaInstitutions)); err != nil {
		b.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var peak atomic.Uint64
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	stop := make(chan struct{})
	go func() {
		s := make([]metrics.Sample, 1)
		copy(s, sample)
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
		}
	}()
	var reg *EBA
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		reg, err = ParseEBA(f, "NO")
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	close(stop)
	runtime.GC()
	metrics.Read(sample)
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(sample[0].Value.Uint64())/(1<<20), "kept-heap-MiB")
	b.ReportMetric(float64(st.Size())/(1<<20), "file-MiB")
	runtime.KeepAlive(reg)
}

// TestEBASource: what the register's address may serve (the export, a
// ZIP holding it, the EBA's file metadata) is read into the snapshot the
// instances share; a snapshot for another country is refused; lookups
// fail closed before the first register and once it is older than
// MaxAge.
func TestEBASource(t *testing.T) {
	export := ebaExport(t, 10)
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	w, _ := zw.Create("PSDMD-202611280000.json")
	w.Write(export)
	zw.Close()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	fetched := now
	src := &EBASource{Country: "NO", MaxAge: 72 * time.Hour, Fetched: func() time.Time { return fetched }, Now: func() time.Time { return now }}
	if _, err := src.Lookup(context.Background(), "PSDNO-FSA-987654321"); !errors.Is(err, ErrStale) {
		t.Fatalf("before the first register: %v", err)
	}
	for name, body := range map[string][]byte{"json": export, "zip": zipped.Bytes()} {
		snap, err := src.Accept(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := src.Use(snap, now); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e, err := src.Lookup(context.Background(), "PSDNO-FSA-987654321"); err != nil || e.Name != "Test TPP AS" {
			t.Fatalf("%s: %+v %v", name, e, err)
		}
	}
	_, err := src.Accept(strings.NewReader(`{"golden_copy_path_context":"https://euclid.eba.europa.eu/register/downloads/PSDMD/","latest_version_relative_zip_path":"20261128/download-PSDMD-202611280000.zip"}`))
	var follow *refresh.Follow
	if !errors.As(err, &follow) || follow.URL != "https://euclid.eba.europa.eu/register/downloads/PSDMD/20261128/download-PSDMD-202611280000.zip" {
		t.Fatalf("the file metadata: %v", err)
	}
	se := &EBASource{Country: "SE"}
	snap, _ := src.Accept(bytes.NewReader(export))
	if err := se.Use(snap, now); err == nil || !strings.Contains(err.Error(), "holds the roles in NO") {
		t.Fatalf("a snapshot of another country: %v", err)
	}
	now = now.Add(73 * time.Hour)
	if _, err := src.Lookup(context.Background(), "PSDNO-FSA-987654321"); !errors.Is(err, ErrStale) {
		t.Fatalf("a register older than MaxAge: %v", err)
	}
}
