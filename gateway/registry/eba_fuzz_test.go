package registry

import (
	"bytes"
	"testing"
)

// FuzzParseEBA: any bytes are read into a register or refused with an
// error, never a panic; a register read answers lookups.
func FuzzParseEBA(f *testing.F) {
	f.Add(ebaExport(f, 3))
	f.Add([]byte(`[[{"Disclaimer":"x"}],[{"CA_OwnerID":"NO_FSA","EntityType":"PSD_PI","Properties":[{"ENT_NAT_REF_COD":"1"},{"ENT_AUT":["2019-01-01"]}],"Services":[{"NO":"PS_080"}]}]]`))
	f.Add([]byte(`[[],[{"CA_OwnerID":"NO_FSA","EntityType":"PSD_AISP","Properties":[{"ENT_NAT_REF_COD":["1","2"]},{"ENT_NAM":["A","B"]}],"Services":["NO"]}]]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		reg, err := ParseEBA(bytes.NewReader(raw), "NO")
		if err != nil {
			return
		}
		if reg.Len() == 0 {
			t.Fatal("an empty register was read")
		}
		snap, err := reg.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if back, err := UnmarshalEBA(snap); err != nil || back.Len() != reg.Len() {
			t.Fatalf("read back: %v", err)
		}
	})
}
