package sandbox

// OwnerOf is the owner of the customers, accounts and agreements TPP tpp
// deals with: in a sandbox deployment (inSandbox) the TPP's own sandbox,
// keyed by its organisation identifier; otherwise the bank's own
// customers ("").
func OwnerOf(inSandbox bool, tpp string) string {
	if inSandbox {
		return tpp
	}
	return ""
}
