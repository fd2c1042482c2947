// Package sqlfeed turns the state package sqlstore reads back
// ([sqlstore.State]) into the neutral [invariants.Store] the store checks
// read ([invariants.CheckStore]). The real-crash mode (package chaos) and
// the lockstep mirror (package mirror) both feed the checks through it, so
// the two read one store the same way.
package sqlfeed
