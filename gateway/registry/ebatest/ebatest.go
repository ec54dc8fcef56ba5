// Package ebatest writes exports of the EBA PSD2 register in the shape the
// EBA publishes them (package registry's EBA describes it), for tests and
// benchmarks: institutions as given, and as many agents as asked, which a
// reader must skip.
package ebatest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Institution is one entity of the export.
type Institution struct {
	// Authority is the CA_OwnerID, such as NO_FSA.
	Authority string
	// Type is the EntityType, such as PSD_PI or PSD_AISP.
	Type string
	// Reference is the ENT_NAT_REF_COD.
	Reference string
	// Names are ENT_NAM: one is written as a string, more as an array.
	Names []string
	// Dates are ENT_AUT: authorisation, withdrawal, authorisation, ...
	Dates []string
	// Services are the service codes by country.
	Services map[string][]string
}

// Write writes the export: the disclaimer, then institutions, with
// agents agent records (PSD_AG, with a national reference of their own)
// spread among them.
func Write(w io.Writer, institutions []Institution, agents int) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(`[[{"Disclaimer":"Generated for obgw's tests in the shape of the EBA PSD2 register's JSON export."}],` + "\n[")
	enc := json.NewEncoder(bw)
	n := 0
	sep := func() {
		if n > 0 {
			bw.WriteString(",\n")
		}
		n++
	}
	every := 1
	if len(institutions) > 0 && agents > 0 {
		every = max(1, agents/len(institutions))
	}
	written := 0
	for i, in := range institutions {
		for written < agents && written < (i+1)*every {
			sep()
			if err := enc.Encode(agent(written)); err != nil {
				return err
			}
			written++
		}
		sep()
		if err := enc.Encode(institution(in)); err != nil {
			return err
		}
	}
	for ; written < agents; written++ {
		sep()
		if err := enc.Encode(agent(written)); err != nil {
			return err
		}
	}
	bw.WriteString("]]\n")
	return bw.Flush()
}

func institution(in Institution) map[string]any {
	props := []map[string]any{{"ENT_NAT_REF_COD": in.Reference}}
	if len(in.Names) == 1 {
		props = append(props, map[string]any{"ENT_NAM": in.Names[0]})
	} else if len(in.Names) > 1 {
		props = append(props, map[string]any{"ENT_NAM": in.Names})
	}
	props = append(props, map[string]any{"ENT_ADD": "Storgata 1"}, map[string]any{"ENT_TOW_CIT_RES": "Oslo"},
		map[string]any{"ENT_COU_RES": in.Authority[:2]})
	if len(in.Dates) > 0 {
		props = append(props, map[string]any{"ENT_AUT": in.Dates})
	}
	var services []map[string][]string
	for country, codes := range in.Services {
		services = append(services, map[string][]string{country: codes})
	}
	return map[string]any{
		"CA_OwnerID": in.Authority, "EntityCode": in.Authority + "!" + in.Reference, "EntityType": in.Type,
		"Properties": props, "Services": services, "__EBA_EntityVersion": "20261101000000000",
	}
}

func agent(i int) map[string]any {
	return map[string]any{
		"CA_OwnerID": "FR_ACPR", "EntityCode": fmt.Sprintf("PSD_PI!FR_ACPR!1376!%d", 50000+i), "EntityType": "PSD_AG",
		"Properties": []map[string]any{
			{"ENT_NAT_REF_COD": fmt.Sprintf("4%08d", i)}, {"ENT_NAM": fmt.Sprintf("Agent %d", i)}, {"ENT_ADD": "1 rue Bagasse"},
			{"ENT_TOW_CIT_RES": "MATOURY"}, {"ENT_POS_COD": "97351"}, {"ENT_COU_RES": "FR"},
			{"ENT_TYP_PAR_ENT": "PSD_PI"}, {"ENT_COD_PAR_ENT": "FR_ACPR!1376"}, {"DER_CHI_ENT_AUT": "Active"},
		},
		"__EBA_EntityVersion": "20220428213506543",
	}
}
