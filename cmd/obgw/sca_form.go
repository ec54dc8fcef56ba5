package main

import (
	"errors"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// scaForm is what the sca command reads of one SCA page: its form, which
// it submits as a browser would, and what the page says around it. It
// follows the markup of backend/sca/templates/sca.html: a post form with a
// hidden csrf input, submit buttons named "step" (identify, login,
// context, confirm, cancel), a text input customerNumber, radio buttons
// "context" and check boxes "account", each inside its label.
type scaForm struct {
	// Action is the form's action attribute, unresolved.
	Action string
	// Hidden are the hidden inputs (the csrf token), sent with every
	// submission.
	Hidden url.Values
	// Steps are the values of the submit buttons named "step".
	Steps map[string]bool
	// Choices are the radio buttons and check boxes, by name.
	Choices map[string][]scaChoice
	// Title, Intro and Error are the texts of the h1, of the paragraph of
	// class "tpp" (who asks for what) and of the element id="error" (the
	// bank refusing the last answer).
	Title, Intro, Error string
	// Summary lists the payments the page asks to approve or cancel (the
	// items of ul id="payments").
	Summary []string
}

// scaChoice is a radio button or check box and the text of its label.
type scaChoice struct{ Value, Label string }

// errNoForm: the page has no post form, so it is no SCA page step.
var errNoForm = errors.New("the page has no form to submit")

// readSCAForm parses an SCA page.
func readSCAForm(r io.Reader) (*scaForm, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return nil, err
	}
	f := &scaForm{Hidden: url.Values{}, Steps: map[string]bool{}, Choices: map[string][]scaChoice{}}
	found := false
	var walk func(n *html.Node, label *html.Node)
	walk = func(n *html.Node, label *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "form":
				if strings.EqualFold(nodeAttr(n, "method"), "post") && !found {
					found, f.Action = true, nodeAttr(n, "action")
				}
			case "label":
				label = n
			case "input":
				switch nodeAttr(n, "type") {
				case "hidden":
					f.Hidden.Add(nodeAttr(n, "name"), nodeAttr(n, "value"))
				case "radio", "checkbox":
					c := scaChoice{Value: nodeAttr(n, "value")}
					if label != nil {
						c.Label = nodeText(label)
					}
					f.Choices[nodeAttr(n, "name")] = append(f.Choices[nodeAttr(n, "name")], c)
				}
			case "button":
				if nodeAttr(n, "name") == "step" {
					f.Steps[nodeAttr(n, "value")] = true
				}
			case "h1":
				if f.Title == "" {
					f.Title = nodeText(n)
				}
			case "p":
				if hasClass(n, "tpp") {
					f.Intro = nodeText(n)
				}
			case "li":
				if n.Parent != nil && nodeAttr(n.Parent, "id") == "payments" {
					f.Summary = append(f.Summary, nodeText(n))
				}
			}
			if nodeAttr(n, "id") == "error" {
				f.Error = nodeText(n)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, label)
		}
	}
	walk(doc, nil)
	if !found {
		return f, errNoForm
	}
	return f, nil
}

func nodeAttr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == name {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(nodeAttr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

// nodeText is n's text content with white space collapsed.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
