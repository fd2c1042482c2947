package goqitetarget

import (
	"context"
	"database/sql"
	"errors"
)

func openPostgres(context.Context, string, *Queue) (*sql.DB, error) {
	return nil, errors.New("goqitetarget: postgres not yet")
}
