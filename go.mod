module github.com/durasim/durasim

go 1.26

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/google/go-cmp v0.7.0
	pgregory.net/rapid v1.3.0
)
