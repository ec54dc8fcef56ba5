// Package openapitest checks HTTP exchanges against the OpenAPI document
// (openapi/obgw.yaml) with kin-openapi's openapi3filter. It is what the
// tests that keep the document true share: the backend's test servers
// (backend/openapi_contract_test.go) and the integration tests' client
// (integration/contract_test.go) check every exchange with Check, so both
// read the document's rules the same way.
//
// The rules beyond the operations themselves are the document's own
// (info.description, "Errors"): a path the document does not list
// answers 404 RESOURCE_UNKNOWN, a method it does not list on a path 405
// SERVICE_INVALID, each with the error body; any other answer to such a
// request is a route the document lacks.
package openapitest
