package main

import (
	"context"
	"io"
	"os"

	"github.com/durasim/durasim/internal/pgtest"
	"github.com/durasim/durasim/mirror"
	"github.com/durasim/durasim/sim"
	"github.com/durasim/durasim/sqlstore"
)

// pgURLEnv names the PostgreSQL URL used when -backend postgres has no -db.
const pgURLEnv = "DURASIM_PG_URL"

// openBackend opens the SQL store -backend names (nil for memory). The
// store implements the correct design only, so a naive variant with it is
// a usage error.
func (f *simFlags) openBackend(c sim.Config, name string) (_ sim.Backend, err error) {
	var b *mirror.Backend
	url := f.db
	switch name {
	case "memory", "":
		if f.db != "" || f.scratchDB {
			return nil, usageErr("-db and -scratch-db need -backend sqlite or postgres")
		}
		return nil, nil
	case sqlstore.SQLite:
		if url == "" {
			url = ":memory:"
		}
	case sqlstore.Postgres:
		if url == "" {
			url = os.Getenv(pgURLEnv)
		}
		if url == "" {
			return nil, usageErr("-backend postgres needs -db URL or $%s", pgURLEnv)
		}
	default:
		return nil, usageErr("invalid -backend %q: want memory, sqlite or postgres", name)
	}
	if c.Variant != sim.DefaultConfig().Variant {
		return nil, usageErr("-backend %s implements the correct design only: drop -variant %s", name, c.Variant)
	}
	var opts []mirror.Option
	if f.scratchDB {
		if name != sqlstore.Postgres {
			return nil, usageErr("-scratch-db needs -backend postgres")
		}
		scratch, drop, err := pgtest.Scratch(url)
		if err != nil {
			return nil, usageErr("-scratch-db: %v", err)
		}
		url, opts = scratch, append(opts, mirror.WithDrop(drop))
		defer func() {
			if b == nil {
				_ = drop()
			}
		}()
	}
	b, err = mirror.Open(context.Background(), name, url, opts...)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return b, nil
}

// closeBackend closes the store of cfg's backend, if any.
func closeBackend(cfg sim.Config) {
	if c, ok := cfg.Backend.(io.Closer); ok {
		_ = c.Close()
	}
}
