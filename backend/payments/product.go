package payments

// Payment products of the dialect (contract section 7).
const (
	// ProductDomestic is a Norwegian credit transfer in NOK between
	// Norwegian accounts.
	ProductDomestic = "domestic-norway-credit-transfers"
	// ProductInstant is the instant ("straks") variant of ProductDomestic,
	// with a fee (Fee).
	ProductInstant = "instant-norwegian-credit-transfers-straks"
	// ProductSEPA is a SEPA credit transfer in EUR between IBANs.
	ProductSEPA = "sepa-credit-transfers"
	// ProductCrossBorder is any other international credit transfer.
	ProductCrossBorder = "cross-border-credit-transfers"
)

// KnownProduct reports whether product is one of the four payment
// products. The caller answers any other with 404 PRODUCT_UNKNOWN before
// parsing a body.
func KnownProduct(product string) bool {
	switch product {
	case ProductDomestic, ProductInstant, ProductSEPA, ProductCrossBorder:
		return true
	}
	return false
}

// domestic reports whether product moves NOK between Norwegian accounts.
func domestic(product string) bool {
	return product == ProductDomestic || product == ProductInstant
}
