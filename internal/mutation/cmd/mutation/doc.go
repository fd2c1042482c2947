// Command mutation measures how many small deliberate bugs in a package the
// sweep notices (see package mutation):
//
//	mutation [-pkg ./model] [-killer "./internal/mutation/cmd/killer -seeds 1:2000 -catalogue 1:1000"]
//	         [-run REGEXP] [-list] [-j N] [-timeout 10x|DURATION]
//	         [-schemata=false] [-equivalent FILE] [-out DIR] [-target 90] [-keep]
//
// It prints killed / timed out / survived / not covered / not viable per
// operator and overall, the score against the target, and every survivor
// as file:line:col  function  operator  "original" -> "mutated", and saves
// the text and a JSON report as DIR/<package>.txt and .json. -list only
// enumerates, printing each mutant's place and ID (the form an
// equivalents file uses). It exits 0
// whatever the score (it is a measurement), 1 when the unmutated killer
// does not pass, 2 for bad usage.
package main
