package respond

// Link is a Berlin Group link object.
type Link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs"`
}

// Get is a link to href that takes GET. Its verbs are one slice shared
// by every such link: links are written out, never changed.
func Get(href string) Link { return Link{Href: href, Verbs: getVerbs} }

// getVerbs is the verbs of every link Get makes; its capacity is its
// length, so an append would copy it.
var getVerbs = []string{"GET"}[:1:1]
