// Package tltest writes trusted lists in the ETSI TS 119 612 format the
// EU lists use, signed as they are (an enveloped XML signature, exclusive
// canonicalisation, the signer's certificate in KeyInfo; ECDSA values as
// r || s), with test keys: a LOTL pointing at national lists, and
// national lists of CA services with their status history.
package tltest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"
)

const (
	nsTSL = "http://uri.etsi.org/02231/v2#"
	nsTSX = "http://uri.etsi.org/02231/v2/additionaltypes#"
	// Granted and Withdrawn are service statuses.
	Granted   = "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted"
	Withdrawn = "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/withdrawn"
	// CAQC is the service type of a qualified CA.
	CAQC = "http://uri.etsi.org/TrstSvc/Svctype/CA/QC"
	// Seals, Web and Signatures are the uses of a service.
	Seals      = "http://uri.etsi.org/TrstSvc/TrustedList/SvcInfoExt/ForeSeals"
	Web        = "http://uri.etsi.org/TrstSvc/TrustedList/SvcInfoExt/ForWebSiteAuthentication"
	Signatures = "http://uri.etsi.org/TrstSvc/TrustedList/SvcInfoExt/ForeSignatures"
	mimeTSL    = "application/vnd.etsi.tsl+xml"
)

// List is a trusted list to write.
type List struct {
	// SchemeURIs are written as SchemeInformationURI (the LOTL's first:
	// the Official Journal notice of its signers).
	SchemeURIs         []string
	Territory          string
	Sequence           int
	Issued, NextUpdate time.Time
	Pointers           []Pointer
	Services           []Service
}

// Pointer is a LOTL's pointer to a list.
type Pointer struct {
	Territory, Location string
	Signers             []*x509.Certificate
}

// Service is a CA service; History is newest first (the first is its
// current information).
type Service struct {
	Name    string
	CA      *x509.Certificate
	History []Status
}

// Status is one of a service's statuses.
type Status struct {
	Status string
	Since  time.Time
	Uses   []string
}

// Sign writes l signed with key, whose certificate is cert.
func Sign(l List, key crypto.Signer, cert *x509.Certificate) ([]byte, error) {
	doc := etree.NewDocument()
	doc.CreateProcInst("xml", `version="1.0" encoding="UTF-8"`)
	root := doc.CreateElement("TrustServiceStatusList")
	root.CreateAttr("xmlns", nsTSL)
	root.CreateAttr("xmlns:ns3", nsTSX)
	root.CreateAttr("Id", "TrustServiceStatusList-1")
	root.CreateAttr("TSLTag", "http://uri.etsi.org/19612/TSLTag")
	si := root.CreateElement("SchemeInformation")
	si.CreateElement("TSLVersionIdentifier").SetText("5")
	si.CreateElement("TSLSequenceNumber").SetText(strconv.Itoa(l.Sequence))
	tslType := "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric"
	if l.Territory == "EU" {
		tslType = "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists"
	}
	si.CreateElement("TSLType").SetText(tslType)
	si.CreateElement("SchemeOperatorName").CreateElement("Name").SetText("Test scheme operator " + l.Territory)
	si.CreateElement("SchemeTerritory").SetText(l.Territory)
	if len(l.SchemeURIs) > 0 {
		uris := si.CreateElement("SchemeInformationURI")
		for _, u := range l.SchemeURIs {
			e := uris.CreateElement("URI")
			e.CreateAttr("xml:lang", "en")
			e.SetText(u)
		}
	}
	if len(l.Pointers) > 0 {
		ptrs := si.CreateElement("PointersToOtherTSL")
		for _, p := range l.Pointers {
			e := ptrs.CreateElement("OtherTSLPointer")
			ids := e.CreateElement("ServiceDigitalIdentities")
			for _, c := range p.Signers {
				ids.CreateElement("ServiceDigitalIdentity").CreateElement("DigitalId").CreateElement("X509Certificate").SetText(base64.StdEncoding.EncodeToString(c.Raw))
			}
			e.CreateElement("TSLLocation").SetText(p.Location)
			info := e.CreateElement("AdditionalInformation")
			info.CreateElement("OtherInformation").CreateElement("TSLType").SetText("http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric")
			info.CreateElement("OtherInformation").CreateElement("SchemeTerritory").SetText(p.Territory)
			info.CreateElement("OtherInformation").CreateElement("ns3:MimeType").SetText(mimeTSL)
		}
	}
	si.CreateElement("ListIssueDateTime").SetText(l.Issued.UTC().Format(time.RFC3339))
	si.CreateElement("NextUpdate").CreateElement("dateTime").SetText(l.NextUpdate.UTC().Format(time.RFC3339))
	if len(l.Services) > 0 {
		tsp := root.CreateElement("TrustServiceProviderList").CreateElement("TrustServiceProvider")
		tsp.CreateElement("TSPInformation").CreateElement("TSPName").CreateElement("Name").SetText("Test QTSP " + l.Territory)
		services := tsp.CreateElement("TSPServices")
		for _, s := range l.Services {
			svc := services.CreateElement("TSPService")
			info := svc.CreateElement("ServiceInformation")
			serviceInfo(info, s, s.History[0])
			if len(s.History) > 1 {
				hist := svc.CreateElement("ServiceHistory")
				for _, h := range s.History[1:] {
					serviceInfo(hist.CreateElement("ServiceHistoryInstance"), s, h)
				}
			}
		}
	}
	ctx, err := dsig.NewSigningContext(key, [][]byte{cert.Raw})
	if err != nil {
		return nil, err
	}
	ctx.Canonicalizer = dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList("")
	ctx.Hash = crypto.SHA512
	signed, err := ctx.SignEnveloped(root)
	if err != nil {
		return nil, err
	}
	if _, ok := key.(*ecdsa.PrivateKey); ok {
		if err := rawECDSA(signed); err != nil {
			return nil, err
		}
	}
	doc.SetRoot(signed)
	return doc.WriteToBytes()
}

func serviceInfo(e *etree.Element, s Service, st Status) {
	e.CreateElement("ServiceTypeIdentifier").SetText(CAQC)
	e.CreateElement("ServiceName").CreateElement("Name").SetText(s.Name)
	e.CreateElement("ServiceDigitalIdentity").CreateElement("DigitalId").CreateElement("X509Certificate").SetText(base64.StdEncoding.EncodeToString(s.CA.Raw))
	e.CreateElement("ServiceStatus").SetText(st.Status)
	e.CreateElement("StatusStartingTime").SetText(st.Since.UTC().Format(time.RFC3339))
	if len(st.Uses) > 0 {
		ext := e.CreateElement("ServiceInformationExtensions").CreateElement("Extension")
		ext.CreateAttr("Critical", "true")
		asi := ext.CreateElement("AdditionalServiceInformation")
		for _, u := range st.Uses {
			asi.CreateElement("URI").SetText(u)
		}
	}
}

// rawECDSA rewrites the DER SignatureValue goxmldsig writes as r || s, as
// XML Signature and the EU lists have it.
func rawECDSA(sig *etree.Element) error {
	v := sig.FindElement(".//SignatureValue")
	der, err := base64.StdEncoding.DecodeString(v.Text())
	if err != nil {
		return err
	}
	var rs struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(der, &rs); err != nil {
		return fmt.Errorf("tltest: ECDSA signature: %w", err)
	}
	raw := make([]byte, 64)
	rs.R.FillBytes(raw[:32])
	rs.S.FillBytes(raw[32:])
	v.SetText(base64.StdEncoding.EncodeToString(raw))
	return nil
}
