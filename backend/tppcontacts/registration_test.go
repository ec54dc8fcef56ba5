package tppcontacts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/obgw/obgw/backend/strictjson/strictjsontest"
)

func TestParseRegistration(t *testing.T) {
	long := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 58) + ".no"
	if len(long) != MaxAddressBytes {
		t.Fatalf("long address is %d bytes", len(long))
	}
	tests := []struct {
		name string
		body string
		want Registration // when path is ""
		path string       // of the one error expected
		rule string       // fragment of its rule
	}{
		{"one address", `{"emailAddresses":["drift@tpp.example"]}`,
			Registration{EmailAddresses: []string{"drift@tpp.example"}}, "", ""},
		{"with tppId", `{"tppId":"PSDNO-FSA-987654321","emailAddresses":["drift@tpp.example","noc@ops.tpp.example"]}`,
			Registration{TPPID: "PSDNO-FSA-987654321", EmailAddresses: []string{"drift@tpp.example", "noc@ops.tpp.example"}}, "", ""},
		{"tppId without PSD", `{"tppId":"NO-FSA-987654321","emailAddresses":["drift@tpp.example"]}`,
			Registration{TPPID: "NO-FSA-987654321", EmailAddresses: []string{"drift@tpp.example"}}, "", ""},
		{"tppId null", `{"tppId":null,"emailAddresses":["drift@tpp.example"]}`,
			Registration{EmailAddresses: []string{"drift@tpp.example"}}, "", ""},
		{"ten addresses", `{"emailAddresses":["a0@t.no","a1@t.no","a2@t.no","a3@t.no","a4@t.no","a5@t.no","a6@t.no","a7@t.no","a8@t.no","a9@t.no"]}`,
			Registration{EmailAddresses: []string{"a0@t.no", "a1@t.no", "a2@t.no", "a3@t.no", "a4@t.no", "a5@t.no", "a6@t.no", "a7@t.no", "a8@t.no", "a9@t.no"}}, "", ""},
		{"kept as sent", `{"emailAddresses":["Drift.Team+psd2@TPP.Example"]}`,
			Registration{EmailAddresses: []string{"Drift.Team+psd2@TPP.Example"}}, "", ""},
		{"longest", `{"emailAddresses":["` + long + `"]}`, Registration{EmailAddresses: []string{long}}, "", ""},
		{"same local part, other case", `{"emailAddresses":["Drift@tpp.example","drift@tpp.example"]}`,
			Registration{EmailAddresses: []string{"Drift@tpp.example", "drift@tpp.example"}}, "", ""},

		{"empty list", `{"emailAddresses":[]}`, Registration{}, "$.emailAddresses", "holds 0 e-mail addresses; send 1 to 10"},
		{"eleven", `{"emailAddresses":["a0@t.no","a1@t.no","a2@t.no","a3@t.no","a4@t.no","a5@t.no","a6@t.no","a7@t.no","a8@t.no","a9@t.no","b@t.no"]}`,
			Registration{}, "$.emailAddresses", "holds 11 e-mail addresses; send 1 to 10"},
		{"missing", `{"tppId":"PSDNO-FSA-987654321"}`, Registration{}, "$.emailAddresses", "is required"},
		{"null", `{"emailAddresses":null}`, Registration{}, "$.emailAddresses", "is required and must not be null"},
		{"a string", `{"emailAddresses":"drift@tpp.example"}`, Registration{}, "$.emailAddresses", "must be an array of e-mail addresses, got string"},
		{"element a number", `{"emailAddresses":["drift@tpp.example",1]}`, Registration{}, "$.emailAddresses[1]", "must be a string (an e-mail address), got number"},
		{"element empty", `{"emailAddresses":[""]}`, Registration{}, "$.emailAddresses[0]", "must not be empty"},
		{"display name", `{"emailAddresses":["Drift <drift@tpp.example>"]}`, Registration{}, "$.emailAddresses[0]", "no display name"},
		{"angle brackets", `{"emailAddresses":["<drift@tpp.example>"]}`, Registration{}, "$.emailAddresses[0]", "no display name"},
		{"comment", `{"emailAddresses":["drift@tpp.example (ops)"]}`, Registration{}, "$.emailAddresses[0]", "no display name"},
		{"quoted local part", `{"emailAddresses":["\"drift team\"@tpp.example"]}`, Registration{}, "$.emailAddresses[0]", "no display name"},
		{"leading space", `{"emailAddresses":[" drift@tpp.example"]}`, Registration{}, "$.emailAddresses[0]", "no display name"},
		{"two addresses in one", `{"emailAddresses":["a@tpp.example, b@tpp.example"]}`, Registration{}, "$.emailAddresses[0]", "no display name"},
		{"no at", `{"emailAddresses":["drift.tpp.example"]}`, Registration{}, "$.emailAddresses[0]", "plain e-mail address"},
		{"double dot", `{"emailAddresses":["drift..team@tpp.example"]}`, Registration{}, "$.emailAddresses[0]", "plain e-mail address"},
		{"one-label domain", `{"emailAddresses":["drift@localhost"]}`, Registration{}, "$.emailAddresses[0]", "at least two labels"},
		{"IP literal", `{"emailAddresses":["drift@[192.0.2.1]"]}`, Registration{}, "$.emailAddresses[0]", "at least two labels"},
		{"dotted IPv4", `{"emailAddresses":["drift@192.0.2.1"]}`, Registration{}, "$.emailAddresses[0]", "at least two labels"},
		{"hyphen at label start", `{"emailAddresses":["drift@-tpp.example"]}`, Registration{}, "$.emailAddresses[0]", "inner hyphens"},
		{"underscore in domain", `{"emailAddresses":["drift@tpp_x.example"]}`, Registration{}, "$.emailAddresses[0]", "at least two labels"},
		{"label of 64", `{"emailAddresses":["drift@` + strings.Repeat("b", 64) + `.no"]}`, Registration{}, "$.emailAddresses[0]", "at least two labels"},
		{"non-ASCII domain", `{"emailAddresses":["drift@blåbær.no"]}`, Registration{}, "$.emailAddresses[0]", "xn-- form"},
		{"local part of 65", `{"emailAddresses":["` + strings.Repeat("a", 65) + `@tpp.example"]}`, Registration{}, "$.emailAddresses[0]", "longer than 64"},
		{"255 characters", `{"emailAddresses":["a` + long + `"]}`, Registration{}, "$.emailAddresses[0]", "longer than 254"},
		{"duplicate", `{"emailAddresses":["drift@tpp.example","noc@tpp.example","drift@tpp.example"]}`, Registration{}, "$.emailAddresses[2]", "repeats the address at index 0"},
		{"duplicate domain case", `{"emailAddresses":["drift@TPP.example","drift@tpp.EXAMPLE"]}`, Registration{}, "$.emailAddresses[1]", "repeats the address at index 0"},
		{"duplicate after a bad one", `{"emailAddresses":["bad","drift@tpp.example","drift@tpp.example"]}`, Registration{}, "", ""}, // two errors, below
		{"tppId malformed", `{"tppId":"987654321","emailAddresses":["drift@tpp.example"]}`, Registration{}, "$.tppId", "must be your organizationIdentifier"},
		{"tppId lower case", `{"tppId":"psdno-fsa-987654321","emailAddresses":["drift@tpp.example"]}`, Registration{}, "$.tppId", "must be your organizationIdentifier"},
		{"tppId a number", `{"tppId":987654321,"emailAddresses":["drift@tpp.example"]}`, Registration{}, "$.tppId", "must be a string, got number"},
		{"unknown field", `{"emailAddresses":["drift@tpp.example"],"name":"Drift"}`, Registration{}, "$.name", "is not a known field"},
		{"misspelt field", `{"emailAddresses":["drift@tpp.example"],"tppID":"NO-FSA-987654321"}`, Registration{}, "$.tppID", "did you mean tppId?"},
		{"singular field", `{"emailAddresses":["drift@tpp.example"],"emailAddress":"drift@tpp.example"}`, Registration{}, "$.emailAddress", "send emailAddresses"},
		{"duplicate member", `{"emailAddresses":["a@t.no"],"emailAddresses":["b@t.no"]}`, Registration{}, "$.emailAddresses", "appears more than once"},
		{"control character", `{"emailAddresses":["drift@tpp.example\n"]}`, Registration{}, "$.emailAddresses[0]", "control character"},
		{"body an array", `["drift@tpp.example"]`, Registration{}, "$", "must be an object, got array"},
		{"not JSON", `{"emailAddresses":[`, Registration{}, "$.emailAddresses[0]", "invalid JSON"},
		{"too large", `{"emailAddresses":["drift@tpp.example"]` + strings.Repeat(" ", MaxBodyBytes) + `}`, Registration{}, "$", "larger than 16 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := ParseRegistration([]byte(tt.body))
			strictjsontest.CheckFieldErrors(t, errs)
			if tt.name == "duplicate after a bad one" {
				if len(errs) != 2 || errs[0].Path != "$.emailAddresses[0]" || errs[1].Path != "$.emailAddresses[2]" ||
					!strings.Contains(errs[1].Rule, "at index 1") {
					t.Fatalf("errors %v", errs)
				}
				return
			}
			strictjsontest.ExpectOne(t, errs, tt.path, tt.rule)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for _, e := range errs {
				if strings.Contains(e.Rule, "drift") || strings.Contains(e.Rule, "@t.no") {
					t.Fatalf("rule quotes the address: %q", e.Rule)
				}
			}
		})
	}
}

func TestParseRegistrationReportsEveryProblem(t *testing.T) {
	_, errs := ParseRegistration([]byte(`{"tppId":"x","emailAddresses":["a@b","ok@tpp.example",true],"extra":1}`))
	var paths []string
	for _, e := range errs {
		paths = append(paths, e.Path)
	}
	want := []string{"$.extra", "$.tppId", "$.emailAddresses[0]", "$.emailAddresses[2]"}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths %v, want %v", paths, want)
	}
}

func TestValidTPPID(t *testing.T) {
	for _, tt := range []struct {
		id   string
		want bool
	}{
		{"PSDNO-FSA-987654321", true},
		{"NO-FSA-987654321", true},
		{"PSDDE-BAFIN-123456", true},
		{"BE-NBB-0123.456.789", true},
		{"PSDGB-FCA-1", true},
		{"PSDNO-ABCDEFGH-1", true},
		{"PSDNO-ABCDEFGHI-1", false}, // NCA of 9 letters
		{"PSDNO-F-1", false},
		{"PSDNO-FSA-", false},
		{"PSDNO-FSA", false},
		{"PSDN-FSA-1", false},
		{"no-fsa-987654321", false},
		{"PSDNO-fsa-987654321", false},
		{"PSDNO-FSA-9876 54321", false},
		{"PSDNO-FSA-98765432\u00e61", false},
		{"NO-FSA-" + strings.Repeat("1", 63), true},
		{"NO-FSA-" + strings.Repeat("1", 64), false}, // 71 characters
		{"", false},
		{"PSD", false},
	} {
		if got := ValidTPPID(tt.id); got != tt.want {
			t.Errorf("ValidTPPID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestMatchTPPID(t *testing.T) {
	const verified = "PSDNO-FSA-987654321"
	for _, tt := range []struct {
		id   string
		want Match
	}{
		{"", SameTPP},
		{"PSDNO-FSA-987654321", SameTPP},
		{"NO-FSA-987654321", SameTPP},
		{"PSDNO-FSA-987654322", OtherTPP},
		{"NO-FSA-987654322", OtherTPP},
		{"PSDSE-FINA-987654321", OtherTPP},
		{"PSDNO-FSA-9876543210", OtherTPP},
		{"PSDPSDNO-FSA-987654321", NotTPPID},
		{"psdNO-FSA-987654321", NotTPPID},
		{"987654321", NotTPPID},
		{"PSD", NotTPPID},
	} {
		if got := MatchTPPID(tt.id, verified); got != tt.want {
			t.Errorf("MatchTPPID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
	if MatchTPPID("PSDNO-FSA-987654321", "NO-FSA-987654321") != SameTPP {
		t.Error("a verified id without the prefix does not match")
	}
}
