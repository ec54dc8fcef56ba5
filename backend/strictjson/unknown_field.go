package strictjson

import "strings"

// FieldSet is the member names an object may hold, and for some names
// that it may not hold, the rule a TPP sees when one is sent (a field of
// another kind of request, say, or one the bank does not support).
type FieldSet struct {
	// Names are the member names the object may hold, each at most once.
	Names []string
	// Hints maps member names the object may not hold to the rule of the
	// FieldError naming one, in place of "is not a known field".
	Hints map[string]string
}

// unknownRule says a member is not a field of the object: its hint if fs
// has one, or the field it was probably meant to be (same name in another
// case, or one or two typos away).
func unknownRule(key string, fs *FieldSet) string {
	if h, ok := fs.Hints[key]; ok {
		return h
	}
	for _, f := range fs.Names {
		if strings.EqualFold(f, key) {
			return "is not a known field; did you mean " + f + "? (field names are case-sensitive)"
		}
	}
	if f := closestField(key, fs.Names); f != "" {
		return "is not a known field; did you mean " + f + "?"
	}
	return "is not a known field of this object; remove it (field names are case-sensitive)"
}

// closestField returns the field of names at most two edits (insertion,
// deletion, substitution or swap of neighbours) from key, or "" when none
// or more than one is that close. Short names need to be closer: one edit
// below six letters, so that "iban" does not suggest "bban" for "ibn".
func closestField(key string, names []string) string {
	if len(key) > 64 {
		return ""
	}
	best, bestD, ties := "", 3, 0
	for _, f := range names {
		limit := 2
		if len(f) < 6 {
			limit = 1
		}
		d := editDistance(strings.ToLower(key), strings.ToLower(f))
		switch {
		case d > limit || d > bestD:
		case d < bestD:
			best, bestD, ties = f, d, 0
		default:
			ties++
		}
	}
	if ties > 0 {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b
// (Levenshtein plus swaps of neighbours), on bytes. Strings whose lengths
// differ by more than 2 give 3 without being compared.
func editDistance(a, b string) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > 2 {
		return 3
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
