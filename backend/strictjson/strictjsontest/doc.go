// Package strictjsontest helps test body parsers built on strictjson, as
// net/http/httptest helps test handlers: it edits bodies built from maps
// (Set, Remove, Raw, Marshal) and asserts what a parser returned
// (ExpectOne, CheckFieldErrors). It is imported by tests only.
package strictjsontest
