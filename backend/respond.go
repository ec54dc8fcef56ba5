package backend

import (
	"github.com/obgw/obgw/backend/respond"
	"github.com/obgw/obgw/bgerror"
)

// storeError maps a store failure to the TPP's error (respond.StoreError),
// logged on the server's log.
func (s *Server) storeError(err error, what string) *bgerror.Error {
	return respond.StoreError(s.log, err, what)
}
