package model

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrInvalidTenant is returned for a tenant id that does not match
// ^[a-z][a-z0-9-]{1,32}$ (seed 000's assertTenantId).
var ErrInvalidTenant = errors.New("invalid tenant id")

// ValidTenant reports whether id matches ^[a-z][a-z0-9-]{1,32}$.
func ValidTenant(id string) bool {
	if len(id) < 2 || len(id) > 33 || id[0] < 'a' || id[0] > 'z' {
		return false
	}
	for i := 1; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// BuildIdempotencyKey returns tenant:document:vN. The tenant is part of the
// key, so the same document id in two tenants never shares a key (seed 000,
// failure 4). Anything invalid is an error, never a key.
func BuildIdempotencyKey(tenantID, documentID string, operationVersion int) (string, error) {
	if !ValidTenant(tenantID) {
		return "", fmt.Errorf("%w: %q", ErrInvalidTenant, tenantID)
	}
	if documentID == "" {
		return "", errors.New("documentId is required for an idempotency key")
	}
	if operationVersion < 1 {
		return "", errors.New("operationVersion must be an integer >= 1")
	}
	return tenantID + ":" + documentID + ":v" + strconv.Itoa(operationVersion), nil
}
