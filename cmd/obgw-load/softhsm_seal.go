package main

import (
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/obgw/obgw/pkcs11key/softhsm"
	"github.com/obgw/obgw/testpki"
)

// softhsmSeal sets up the bank's seal in a SoftHSM2 token for the bench's
// hsm variant: a token in -dir, a key pair generated inside it (P-256, or
// RSA with -bits), and a QSealC for it from a CA made for the run. It
// prints the environment that points obgw at them: SOFTHSM2_CONF,
// OBGW_BANK_SEAL_CERT and OBGW_BANK_SEAL_KEY (a PKCS #11 URI).
func softhsmSeal(args []string) error {
	fs := flag.NewFlagSet("softhsm-seal", flag.ContinueOnError)
	dir := fs.String("dir", "", "directory for the SoftHSM2 configuration and token (made if missing)")
	bits := fs.Int("bits", 0, "RSA key size; 0 for ECDSA P-256")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("-dir is required")
	}
	hsm, err := softhsm.New(*dir)
	if err != nil {
		return err
	}
	// This process generates the key: SoftHSM2 reads its configuration
	// when the module is first loaded.
	if err := os.Setenv("SOFTHSM2_CONF", hsm.Conf); err != nil {
		return err
	}
	tok, err := hsm.InitToken("obgw-bench", "bench-pin")
	if err != nil {
		return err
	}
	pub, err := tok.Generate("bank-seal", *bits)
	if err != nil {
		return err
	}
	now := time.Now()
	ca, err := testpki.NewRootAuthority(pkix.Name{CommonName: "Bench QTSP CA", Country: []string{"NO"}}, now.Add(-time.Hour), now.AddDate(30, 0, 0), 2048)
	if err != nil {
		return err
	}
	cert, err := (&testpki.PKI{Issuing: ca}).IssueBankSeal(pub)
	if err != nil {
		return err
	}
	certFile := filepath.Join(*dir, "bank-seal.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644); err != nil {
		return err
	}
	fmt.Printf("%s\nOBGW_BANK_SEAL_CERT=%s\nOBGW_BANK_SEAL_KEY=%s\n", hsm.Env(), certFile, tok.URI("bank-seal"))
	return nil
}
