package civildate

import "time"

// Today returns the date (YYYY-MM-DD) at the bank, in Norway
// (Europe/Oslo: CET, and CEST from the last Sunday of March to the last
// Sunday of October, switching at 01:00 UTC), at instant now. The EU rule
// is computed here so that no time zone database is needed on the host.
func Today(now time.Time) string {
	u := now.UTC()
	offset := time.Hour
	if start, end := lastSunday(u.Year(), time.March), lastSunday(u.Year(), time.October); !u.Before(start) && u.Before(end) {
		offset = 2 * time.Hour
	}
	return u.Add(offset).Format(time.DateOnly)
}

// lastSunday returns 01:00 UTC on the last Sunday of month m of year y.
func lastSunday(y int, m time.Month) time.Time {
	last := time.Date(y, m+1, 0, 1, 0, 0, 0, time.UTC)
	return last.AddDate(0, 0, -int(last.Weekday()))
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
