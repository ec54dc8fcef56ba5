package trustlist

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Namespaces of ETSI TS 119 612 (trusted lists) as the published lists
// use them; prefixes differ from list to list, so elements are matched by
// namespace.
const (
	nsTSL = "http://uri.etsi.org/02231/v2#"
	nsTSX = "http://uri.etsi.org/02231/v2/additionaltypes#"
)

// URIs the trust decisions read.
const (
	// ServiceTypeCAQC is a CA issuing qualified certificates.
	ServiceTypeCAQC = "http://uri.etsi.org/TrstSvc/Svctype/CA/QC"
	statusPrefix    = "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/"
	// StatusGranted is a qualified service's status while it may issue.
	StatusGranted = statusPrefix + "granted"
	// Before 2016 (Directive 1999/93/EC) a supervised or accredited
	// service stood where a granted one stands now.
	statusUnderSupervision = statusPrefix + "undersupervision"
	statusAccredited       = statusPrefix + "accredited"
	extPrefix              = "http://uri.etsi.org/TrstSvc/TrustedList/SvcInfoExt/"
	// ForESeals marks a service issuing certificates for electronic seals
	// (QSealCs); ForWebSiteAuthentication one issuing website
	// certificates (QWACs); ForESignatures one for signatures.
	ForESeals                = extPrefix + "ForeSeals"
	ForWebSiteAuthentication = extPrefix + "ForWebSiteAuthentication"
	ForESignatures           = extPrefix + "ForeSignatures"
	// MimeTypeTSL is a pointer's type of a machine-readable list.
	MimeTypeTSL = "application/vnd.etsi.tsl+xml"
)

// List is a trusted list (a Member State's, or the EU List of Trusted
// Lists), as much of it as obgw decides with.
type List struct {
	// Territory is the SchemeTerritory: NO, or EU for the LOTL.
	Territory string
	// Sequence is the TSLSequenceNumber; Version the TSLVersionIdentifier.
	Sequence, Version int
	// Issued is ListIssueDateTime; NextUpdate when the next list is due
	// (zero: the scheme is closed).
	Issued, NextUpdate time.Time
	// SchemeURIs are SchemeInformationURI's values: the LOTL's first is
	// the Official Journal notice of its signers, then its pivots.
	SchemeURIs []string
	// Pointers are the LOTL's pointers to the national lists (and to
	// itself).
	Pointers []Pointer
	// Services are the trust services of every provider.
	Services []Service
}

// Pointer is one OtherTSLPointer: where a list is and who may sign it.
type Pointer struct {
	Territory string
	Location  string
	MimeType  string
	TSLType   string
	Signers   []*x509.Certificate
}

// Service is one TSPService: its current information and its history.
type Service struct {
	// Provider is the TSP's name.
	Provider string
	// Name is the service's name.
	Name string
	// Certificates identify the service (its CA certificates).
	Certificates []*x509.Certificate
	// History lists the service's statuses, newest first: the current one,
	// then ServiceHistory's instances.
	History []Status
}

// Status is the service's status from Since until the next newer one.
type Status struct {
	Type   string // ServiceTypeIdentifier
	Status string
	Since  time.Time
	// Uses are the AdditionalServiceInformation URIs (ForESeals, ...).
	Uses []string
	// Qualifiers are the Qualifications extension's qualifier URIs.
	Qualifiers []string
}

// The XML of TS 119 612, as far as it is read.
type xmlList struct {
	XMLName xml.Name    `xml:"http://uri.etsi.org/02231/v2# TrustServiceStatusList"`
	Scheme  xmlScheme   `xml:"http://uri.etsi.org/02231/v2# SchemeInformation"`
	TSPList *xmlTSPList `xml:"http://uri.etsi.org/02231/v2# TrustServiceProviderList"`
}

type xmlScheme struct {
	Version    int            `xml:"http://uri.etsi.org/02231/v2# TSLVersionIdentifier"`
	Sequence   int            `xml:"http://uri.etsi.org/02231/v2# TSLSequenceNumber"`
	Territory  string         `xml:"http://uri.etsi.org/02231/v2# SchemeTerritory"`
	Issued     string         `xml:"http://uri.etsi.org/02231/v2# ListIssueDateTime"`
	NextUpdate string         `xml:"http://uri.etsi.org/02231/v2# NextUpdate>dateTime"`
	Pointers   *xmlPointers   `xml:"http://uri.etsi.org/02231/v2# PointersToOtherTSL"`
	URIs       []xmlLangValue `xml:"http://uri.etsi.org/02231/v2# SchemeInformationURI>URI"`
}

type xmlPointers struct {
	Pointers []xmlPointer `xml:"http://uri.etsi.org/02231/v2# OtherTSLPointer"`
}

type xmlPointer struct {
	Identities []xmlDigitalIdentity `xml:"http://uri.etsi.org/02231/v2# ServiceDigitalIdentities>ServiceDigitalIdentity"`
	Location   string               `xml:"http://uri.etsi.org/02231/v2# TSLLocation"`
	Info       []xmlOtherInfo       `xml:"http://uri.etsi.org/02231/v2# AdditionalInformation>OtherInformation"`
}

type xmlOtherInfo struct {
	TSLType   string `xml:"http://uri.etsi.org/02231/v2# TSLType"`
	Territory string `xml:"http://uri.etsi.org/02231/v2# SchemeTerritory"`
	MimeType  string `xml:"http://uri.etsi.org/02231/v2/additionaltypes# MimeType"`
}

type xmlDigitalIdentity struct {
	IDs []xmlDigitalID `xml:"http://uri.etsi.org/02231/v2# DigitalId"`
}

type xmlDigitalID struct {
	Certificate string `xml:"http://uri.etsi.org/02231/v2# X509Certificate"`
}

type xmlLangValue struct {
	Value string `xml:",chardata"`
}

type xmlTSPList struct {
	TSPs []xmlTSP `xml:"http://uri.etsi.org/02231/v2# TrustServiceProvider"`
}

type xmlTSP struct {
	Names    []xmlLangValue `xml:"http://uri.etsi.org/02231/v2# TSPInformation>TSPName>Name"`
	Services []xmlService   `xml:"http://uri.etsi.org/02231/v2# TSPServices>TSPService"`
}

type xmlService struct {
	Info    xmlServiceInfo   `xml:"http://uri.etsi.org/02231/v2# ServiceInformation"`
	History []xmlServiceInfo `xml:"http://uri.etsi.org/02231/v2# ServiceHistory>ServiceHistoryInstance"`
}

type xmlServiceInfo struct {
	Type       string             `xml:"http://uri.etsi.org/02231/v2# ServiceTypeIdentifier"`
	Names      []xmlLangValue     `xml:"http://uri.etsi.org/02231/v2# ServiceName>Name"`
	Identity   xmlDigitalIdentity `xml:"http://uri.etsi.org/02231/v2# ServiceDigitalIdentity"`
	Status     string             `xml:"http://uri.etsi.org/02231/v2# ServiceStatus"`
	Since      string             `xml:"http://uri.etsi.org/02231/v2# StatusStartingTime"`
	Extensions []xmlExtension     `xml:"http://uri.etsi.org/02231/v2# ServiceInformationExtensions>Extension"`
}

type xmlExtension struct {
	URIs       []xmlLangValue `xml:"http://uri.etsi.org/02231/v2# AdditionalServiceInformation>URI"`
	Qualifiers []xmlQualifier `xml:"http://uri.etsi.org/TrstSvc/SvcInfoExt/eSigDir-1999-93-EC-TrustedList/# Qualifications>QualificationElement>Qualifiers>Qualifier"`
}

type xmlQualifier struct {
	URI string `xml:"uri,attr"`
}

// Parse reads a trusted list's XML. It checks no signature: parse only
// what Verify returned.
func Parse(raw []byte) (*List, error) {
	var x xmlList
	if err := xml.Unmarshal(raw, &x); err != nil {
		return nil, fmt.Errorf("trustlist: not a trusted list (ETSI TS 119 612): %w", err)
	}
	s := x.Scheme
	if s.Version != 5 && s.Version != 6 {
		return nil, fmt.Errorf("trustlist: TSLVersionIdentifier %d: versions 5 and 6 are read", s.Version)
	}
	l := &List{Territory: strings.TrimSpace(s.Territory), Sequence: s.Sequence, Version: s.Version}
	for _, u := range s.URIs {
		l.SchemeURIs = append(l.SchemeURIs, strings.TrimSpace(u.Value))
	}
	var err error
	if l.Issued, err = parseTime("ListIssueDateTime", s.Issued); err != nil {
		return nil, err
	}
	if strings.TrimSpace(s.NextUpdate) != "" {
		if l.NextUpdate, err = parseTime("NextUpdate", s.NextUpdate); err != nil {
			return nil, err
		}
	}
	if l.Territory == "" {
		return nil, errors.New("trustlist: no SchemeTerritory")
	}
	if s.Pointers != nil {
		for i, p := range s.Pointers.Pointers {
			ptr := Pointer{Location: strings.TrimSpace(p.Location)}
			for _, info := range p.Info {
				ptr.Territory = first(ptr.Territory, strings.TrimSpace(info.Territory))
				ptr.MimeType = first(ptr.MimeType, strings.TrimSpace(info.MimeType))
				ptr.TSLType = first(ptr.TSLType, strings.TrimSpace(info.TSLType))
			}
			for _, id := range p.Identities {
				certs, err := certificates(id)
				if err != nil {
					return nil, fmt.Errorf("trustlist: pointer %d (%s): %w", i, ptr.Territory, err)
				}
				ptr.Signers = append(ptr.Signers, certs...)
			}
			l.Pointers = append(l.Pointers, ptr)
		}
	}
	if x.TSPList != nil {
		for _, tsp := range x.TSPList.TSPs {
			for _, svc := range tsp.Services {
				out, err := service(tsp, svc)
				if err != nil {
					return nil, err
				}
				l.Services = append(l.Services, out)
			}
		}
	}
	return l, nil
}

func service(tsp xmlTSP, svc xmlService) (Service, error) {
	out := Service{Provider: firstName(tsp.Names), Name: firstName(svc.Info.Names)}
	certs, err := certificates(svc.Info.Identity)
	if err != nil {
		return out, fmt.Errorf("trustlist: service %q: %w", out.Name, err)
	}
	out.Certificates = certs
	for _, info := range append([]xmlServiceInfo{svc.Info}, svc.History...) {
		st := Status{Type: strings.TrimSpace(info.Type), Status: strings.TrimSpace(info.Status)}
		if st.Since, err = parseTime("StatusStartingTime", info.Since); err != nil {
			return out, fmt.Errorf("trustlist: service %q: %w", out.Name, err)
		}
		for _, e := range info.Extensions {
			for _, u := range e.URIs {
				st.Uses = append(st.Uses, strings.TrimSpace(u.Value))
			}
			for _, q := range e.Qualifiers {
				st.Qualifiers = append(st.Qualifiers, strings.TrimSpace(q.URI))
			}
		}
		out.History = append(out.History, st)
	}
	return out, nil
}

// certificates decodes the X509Certificate values of a digital identity.
func certificates(id xmlDigitalIdentity) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for _, d := range id.IDs {
		b64 := strings.Join(strings.Fields(d.Certificate), "")
		if b64 == "" {
			continue // an X509SubjectName or X509SKI
		}
		der, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, fmt.Errorf("X509Certificate is not base64: %w", err)
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("X509Certificate: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}

func parseTime(name, v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(v))
	if err != nil {
		return time.Time{}, fmt.Errorf("trustlist: %s %q is not a date and time", name, v)
	}
	return t.UTC(), nil
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func firstName(names []xmlLangValue) string {
	if len(names) == 0 {
		return ""
	}
	return strings.TrimSpace(names[0].Value)
}
