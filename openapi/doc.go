// Package openapi holds the OpenAPI 3.1 document of the interface obgw
// serves (obgw.yaml, embedded): every route of the backend and of the
// gateway, with its headers, parameters, request and response bodies and
// the error codes it answers per status. JSON returns the document as the
// gateway serves it at /v1/openapi.json; Load parses and validates it for
// tests that check requests and responses against it.
//
// obgw.yaml is the one place the interface is written down for machines.
// It is YAML so that people can read and review it; YAML anchors and merge
// keys share the header and error sets that many routes have in common
// (x-obgw-parameter-sets, x-obgw-header-sets, x-obgw-response-sets). JSON
// resolves them, keeps the order of the members as written and is
// computed once.
//
// What keeps the document true lives in the tests that use it, through
// openapitest: the backend's tests validate every request and response
// they make against it and compare its operations with the routes the
// backend registers (backend/openapi_contract_test.go); the integration
// tests validate every exchange they have with the running binary
// (integration/contract_test.go).
package openapi
