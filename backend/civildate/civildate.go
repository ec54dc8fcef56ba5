package civildate

import (
	"time"
	_ "time/tzdata" // Europe/Oslo on any host, with or without a zone database
)

// Oslo is the bank's time zone, Europe/Oslo, from the time zone database
// embedded in the binary.
var Oslo = func() *time.Location {
	l, err := time.LoadLocation("Europe/Oslo")
	if err != nil {
		panic("civildate: Europe/Oslo is missing from the embedded time zone database: " + err.Error())
	}
	return l
}()

// Today returns the date (YYYY-MM-DD) at the bank, in Norway, at instant
// now.
func Today(now time.Time) string {
	return now.In(Oslo).Format(time.DateOnly)
}

// Valid reports whether s is YYYY-MM-DD naming a real calendar day
// (0000-9999, proleptic Gregorian).
func Valid(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	y := int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	m := int(s[5]-'0')*10 + int(s[6]-'0')
	d := int(s[8]-'0')*10 + int(s[9]-'0')
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
