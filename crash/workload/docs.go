package workload

import (
	"strconv"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// DocArgs is a document job's args: whose document it is. Every library's
// jobs carry them as JSON (River's args, asynq's payload, goqite's body),
// encoded as target/rivertarget encodes them.
type DocArgs struct {
	Tenant  string `json:"tenant"`
	Doc     string `json:"doc"`
	Version int    `json:"version"`
}

// Kind is the job kind: targetsim's document kind (River's Kind).
func (DocArgs) Kind() string { return targetsim.KindDoc }

// Target is a as the seam's args.
func (a DocArgs) Target() target.Args {
	return target.Args{Tenant: a.Tenant, Doc: a.Doc, Version: a.Version}
}

// Key is the correct designs' idempotency key, tenant:document:vN;
// KeyWithoutTenant the naive one's, document:vN.
func (a DocArgs) Key() string              { return a.Tenant + ":" + a.KeyWithoutTenant() }
func (a DocArgs) KeyWithoutTenant() string { return a.Doc + ":v" + strconv.Itoa(a.Version) }

// tenants are targetsim's: their documents share names, so a key or an
// effect that loses its tenant collides.
var tenants = []string{"acme", "globex", "initech"}

// DocOf is the i-th document of the workload (from 1): tenants in turn,
// names d1, d2, … shared between tenants.
func DocOf(i int) DocArgs {
	return DocArgs{Tenant: tenants[(i-1)%len(tenants)], Doc: "d" + strconv.Itoa((i-1)/len(tenants)+1), Version: 1}
}
