// Package riverrepro047 is riverrepro's rescuer test on River v0.47.0,
// the last release before the fix of River issue #1302 (see ../README.md).
package riverrepro047
