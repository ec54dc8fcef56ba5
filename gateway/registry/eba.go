package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/obgw/obgw/gateway/eidas"
)

// The EBA's PSD2 register (the Central Register under PSD2 article 15) as
// its JSON export publishes it, read from public descriptions and
// importers of the file (README "TPPs from the EBA register"):
//
//   - The file is a two-element array: a one-element array holding a
//     disclaimer object, then the array of entities.
//   - An entity is an object with CA_OwnerID (the competent authority,
//     such as "NO_FSA" or "FI_FIN-FSA"), EntityCode (free form, not
//     parsed), EntityType, Properties (an array of one-member objects
//     whose values are a string or an array of strings) and, for
//     institutions, Services (an array of one-member objects, country
//     code to an array of service codes or one code).
//   - EntityType: PSD_PI and PSD_EPI (payment institutions, exempted
//     ones), PSD_EMI and PSD_EEMI (e-money institutions, exempted ones),
//     PSD_AISP (account information service providers) are institutions
//     that may be TPPs; PSD_ENL, PSD_EXC, PSD_BR (branches) and PSD_AG
//     (agents, nine records in ten) are skipped.
//   - Properties used: ENT_NAT_REF_COD (the national reference, the
//     number of a QSealC's organizationIdentifier), ENT_NAM (the name; an
//     array holds the native name first), ENT_AUT (authorisation and
//     withdrawal dates in order: an odd count is authorised, an even one
//     withdrawn; none is not authorised).
//   - Services: PS_070 is payment initiation (PSP_PI), PS_080 account
//     information (PSP_AI), PS_05A issuing of payment instruments
//     (PSP_IC, for confirmation of funds). A TPP's roles are the services
//     listed for the bank's country (its home country's authorisation,
//     or passported there).
//
// A QSealC's organizationIdentifier PSD<CC>-<NCA>-<number> is looked up
// by its country and number: the register's authority codes differ from
// the NCA ids certificates carry (FI_FIN-FSA against FINFSA, LV_LV
// against FCMC), and one country's PSD2 register has one numbering.
// Numbers compare without spaces and hyphens.

// EBA entity types kept.
var ebaInstitutionTypes = []string{"PSD_PI", "PSD_EPI", "PSD_EMI", "PSD_EEMI", "PSD_AISP"}

// ebaRoles maps EBA service codes to PSD2 roles.
var ebaRoles = map[string]string{
	"PS_070": eidas.RolePaymentInitiation,
	"PS_080": eidas.RoleAccountInformation,
	"PS_05A": eidas.RoleIssuingCardInstrument,
}

// MaxEBAInstitutions bounds the institutions one register holds; a
// larger file is refused rather than grown into (the real register holds
// about 4,000).
const MaxEBAInstitutions = 200_000

// EBA is the institutions of the EBA PSD2 register as a Source, with the
// roles they hold in one country.
type EBA struct {
	country string
	entries map[string]*ebaInstitution // by ebaKey
}

// ebaInstitution is what the register says of one institution.
type ebaInstitution struct {
	Country    string   `json:"country"`   // of the authority, from CA_OwnerID
	Authority  string   `json:"authority"` // CA_OwnerID
	Reference  string   `json:"reference"` // ENT_NAT_REF_COD as published
	Name       string   `json:"name"`
	Roles      []string `json:"roles"`
	Authorised bool     `json:"authorised"`
}

// ebaKey is the lookup key of a country and national reference.
func ebaKey(country, reference string) string {
	r := strings.NewReplacer(" ", "", "-", "").Replace(reference)
	return country + "/" + r
}

// Country is the country whose roles the register grants.
func (e *EBA) Country() string { return e.country }

// Len is the number of institutions.
func (e *EBA) Len() int { return len(e.entries) }

// Lookup implements Source.
func (e *EBA) Lookup(_ context.Context, orgID string) (*Entry, error) {
	nca, number, ok := eidas.ParseOrganizationIdentifier(orgID)
	if !ok {
		return nil, ErrNotFound
	}
	in, ok := e.entries[ebaKey(nca[:2], number)]
	if !ok {
		return nil, ErrNotFound
	}
	status := StatusWithdrawn
	if in.Authorised {
		status = StatusAuthorised
	}
	return &Entry{OrganizationIdentifier: orgID, Name: in.Name, Roles: in.Roles, Status: status}, nil
}

// ebaEntity is one record of the export, its properties and services
// still raw (agents are skipped unread).
type ebaEntity struct {
	CAOwnerID  string            `json:"CA_OwnerID"`
	EntityType string            `json:"EntityType"`
	Properties json.RawMessage   `json:"Properties"`
	Services   []json.RawMessage `json:"Services"`
}

// ParseEBA reads an export of the EBA PSD2 register from r, one entity
// at a time, keeping the institutions and their roles in country (an
// ISO 3166 code, "NO"): memory follows the institutions, not the file.
func ParseEBA(r io.Reader, country string) (*EBA, error) {
	e := &EBA{country: country, entries: map[string]*ebaInstitution{}}
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, errors.New("registry: EBA register: not a JSON array")
	}
	for i := 0; dec.More(); i++ {
		// [[disclaimer], [entities...]]: each element is an array, whose
		// elements are read one at a time.
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil, fmt.Errorf("registry: EBA register: element %d is not an array: not the EBA export's shape [[disclaimer], [entities]]", i)
		}
		if err := e.entities(dec); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("registry: EBA register: %w", err)
	}
	if len(e.entries) == 0 {
		return nil, errors.New("registry: EBA register: no institutions")
	}
	return e, nil
}

// entities reads the elements of an array whose '[' was read: entities,
// or the disclaimer (no CA_OwnerID), which is skipped.
func (e *EBA) entities(dec *json.Decoder) error {
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("registry: EBA register: %w", err)
		}
		if err := e.add(raw); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// add keeps raw when it is an institution.
func (e *EBA) add(raw json.RawMessage) error {
	var ent ebaEntity
	if err := json.Unmarshal(raw, &ent); err != nil {
		return fmt.Errorf("registry: EBA register: an entity: %w", err)
	}
	if ent.CAOwnerID == "" || !slices.Contains(ebaInstitutionTypes, ent.EntityType) {
		return nil // the disclaimer, an agent, a branch, ...
	}
	props, err := ebaProperties(ent.Properties)
	if err != nil {
		return fmt.Errorf("registry: EBA register: %s: %w", ent.CAOwnerID, err)
	}
	ref := first(props["ENT_NAT_REF_COD"])
	if ref == "" || len(ent.CAOwnerID) < 3 || ent.CAOwnerID[2] != '_' {
		return nil // no number a certificate could carry
	}
	in := &ebaInstitution{
		Country:    ent.CAOwnerID[:2],
		Authority:  ent.CAOwnerID,
		Reference:  ref,
		Name:       first(props["ENT_NAM"]),
		Authorised: len(props["ENT_AUT"])%2 == 1,
	}
	roles, err := ebaServices(ent.Services, e.country)
	if err != nil {
		return fmt.Errorf("registry: EBA register: %s %s: %w", ent.CAOwnerID, ref, err)
	}
	in.Roles = roles
	key := ebaKey(in.Country, ref)
	if old, ok := e.entries[key]; ok {
		// Listed twice (a PI that became an EMI): authorised wins, and
		// the roles of the authorised records add up.
		switch {
		case old.Authorised && !in.Authorised:
			return nil
		case old.Authorised && in.Authorised:
			for _, r := range in.Roles {
				if !slices.Contains(old.Roles, r) {
					old.Roles = append(old.Roles, r)
				}
			}
			sort.Strings(old.Roles)
			return nil
		}
	} else if len(e.entries) >= MaxEBAInstitutions {
		return fmt.Errorf("registry: EBA register: more than %d institutions", MaxEBAInstitutions)
	}
	e.entries[key] = in
	return nil
}

// ebaProperties reads Properties: one-member objects, each value a string
// or an array of strings.
func ebaProperties(raw json.RawMessage) (map[string][]string, error) {
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("member Properties: %w", err)
	}
	out := map[string][]string{}
	for _, p := range list {
		for k, v := range p {
			vs, err := stringOrList(v)
			if err != nil {
				return nil, fmt.Errorf("member Properties, %s: %w", k, err)
			}
			out[k] = append(out[k], vs...)
		}
	}
	return out, nil
}

// ebaServices reads Services and returns the roles the services listed
// for country grant, sorted.
func ebaServices(list []json.RawMessage, country string) ([]string, error) {
	var roles []string
	for _, raw := range list {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			continue // a bare string: no country, no role
		}
		codes, err := stringOrList(m[country])
		if err != nil {
			return nil, fmt.Errorf("member Services, %s: %w", country, err)
		}
		for _, c := range codes {
			if r, ok := ebaRoles[c]; ok && !slices.Contains(roles, r) {
				roles = append(roles, r)
			}
		}
	}
	sort.Strings(roles)
	return roles, nil
}

// stringOrList reads a JSON string, an array of strings, or nothing.
func stringOrList(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("neither a string nor an array of strings")
	}
	return many, nil
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// ebaSnapshot is an EBA register as stored for the other instances and
// the next start: the institutions, not the export.
type ebaSnapshot struct {
	Country      string            `json:"country"`
	Institutions []*ebaInstitution `json:"institutions"`
}

// MarshalJSON encodes the register's institutions (UnmarshalEBA reads
// them back).
func (e *EBA) MarshalJSON() ([]byte, error) {
	s := ebaSnapshot{Country: e.country, Institutions: make([]*ebaInstitution, 0, len(e.entries))}
	for _, in := range e.entries {
		s.Institutions = append(s.Institutions, in)
	}
	sort.Slice(s.Institutions, func(i, j int) bool {
		return s.Institutions[i].Country+s.Institutions[i].Reference < s.Institutions[j].Country+s.Institutions[j].Reference
	})
	return json.Marshal(s)
}

// UnmarshalEBA reads a register MarshalJSON wrote.
func UnmarshalEBA(raw []byte) (*EBA, error) {
	var s ebaSnapshot
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("registry: stored EBA register: %w", err)
	}
	if len(s.Institutions) == 0 || len(s.Institutions) > MaxEBAInstitutions {
		return nil, fmt.Errorf("registry: stored EBA register holds %d institutions", len(s.Institutions))
	}
	e := &EBA{country: s.Country, entries: make(map[string]*ebaInstitution, len(s.Institutions))}
	for _, in := range s.Institutions {
		if in == nil || in.Country == "" || in.Reference == "" {
			return nil, errors.New("registry: stored EBA register: an institution without country or reference")
		}
		e.entries[ebaKey(in.Country, in.Reference)] = in
	}
	return e, nil
}
