package payments

// Address is a postal address (Berlin Group v1.3 Address).
type Address struct {
	// StreetName is at most 70 characters.
	StreetName string
	// BuildingNumber is at most 16 characters.
	BuildingNumber string
	// PostCode is at most 16 characters.
	PostCode string
	// TownName is at most 35 characters.
	TownName string
	// Country is an ISO 3166-1 alpha-2 code of the allowed list.
	Country string
}

const ruleCountry = "must be an ISO 3166-1 alpha-2 country code of the allowed list: two upper-case letters (such as NO)"

var addressFields = &fieldSet{
	names: []string{"streetName", "buildingNumber", "postCode", "townName", "country"},
	hints: map[string]string{
		"street":     "is not a field of a Berlin Group v1.3 address; send it as streetName",
		"city":       "is not a field of a Berlin Group v1.3 address; send it as townName",
		"postalCode": "is not a field of a Berlin Group v1.3 address; send it as postCode",
	},
}

// address checks the optional address object name.
func (o object) address(name string, required bool) (*Address, presence) {
	a, p := o.child(name, required, addressFields)
	if p != valid {
		return nil, p
	}
	var ad Address
	var ok [5]bool
	ad.StreetName, ok[0] = a.text("streetName", false, maxStreetRunes)
	ad.BuildingNumber, ok[1] = a.text("buildingNumber", false, maxShortRunes)
	ad.PostCode, ok[2] = a.text("postCode", false, maxShortRunes)
	ad.TownName, ok[3] = a.text("townName", false, maxTownRunes)
	ad.Country, ok[4] = a.code("country", true, validCountry, ruleCountry)
	if ok != [5]bool{true, true, true, true, true} {
		return nil, invalid
	}
	return &ad, valid
}
