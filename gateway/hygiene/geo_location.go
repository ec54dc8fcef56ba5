package hygiene

// CheckGeoLocation checks a PSU-Geo-Location value: "GEO:" (in any case),
// the latitude, ',' or ';', the longitude. Each coordinate is a decimal
// number with an optional '-', one to three integer digits and an optional
// fraction of up to 15 digits; the latitude lies in -90..90 and the longitude
// in -180..180.
func CheckGeoLocation(name, v string) error {
	if !isGeoLocation(v) {
		return &Error{Path: name, Text: "not a geo location; send GEO:<latitude>,<longitude> in decimal degrees, e.g. GEO:59.913868,10.752245"}
	}
	return nil
}

func isGeoLocation(v string) bool {
	if len(v) < 4 || (v[0]|0x20) != 'g' || (v[1]|0x20) != 'e' || (v[2]|0x20) != 'o' || v[3] != ':' {
		return false
	}
	rest, ok := coordinate(v[4:], 90)
	if !ok || len(rest) == 0 || (rest[0] != ',' && rest[0] != ';') {
		return false
	}
	rest, ok = coordinate(rest[1:], 180)
	return ok && len(rest) == 0
}

// coordinate scans a decimal number with absolute value at most limit from
// the start of v and returns what follows it.
func coordinate(v string, limit int) (string, bool) {
	i := 0
	if i < len(v) && v[i] == '-' {
		i++
	}
	start, whole := i, 0
	for i < len(v) && isDigit(v[i]) && i-start < 3 {
		whole = whole*10 + int(v[i]-'0')
		i++
	}
	if i == start || (i < len(v) && isDigit(v[i])) {
		return v, false
	}
	fractionZero := true
	if i < len(v) && v[i] == '.' {
		i++
		fstart := i
		for i < len(v) && isDigit(v[i]) {
			if v[i] != '0' {
				fractionZero = false
			}
			i++
		}
		if i == fstart || i-fstart > 15 {
			return v, false
		}
	}
	if whole > limit || (whole == limit && !fractionZero) {
		return v, false
	}
	return v[i:], true
}
