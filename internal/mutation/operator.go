package mutation

import (
	"fmt"
	"go/token"
)

// Operator is a kind of mutation.
type Operator uint8

// The operators, in the order a site's mutants are listed.
const (
	CondBoundary Operator = iota // < <= > >= moved across the boundary
	CondNegation                 // == != flipped, relations negated
	Arithmetic                   // + - * / % and their assignments swapped
	IncDec                       // ++ and -- swapped
	Logical                      // && and || swapped
	BoolLiteral                  // true/false flipped in a return or an assignment
	StmtRemoval                  // an assignment, inc/dec or call statement removed
	SQLLiteral                   // inside a string literal of SQL: a comparison, AND, NOT or + changed (sqlmut.go)
	OperatorCount
)

var operatorNames = [OperatorCount]string{
	"conditionals-boundary", "conditionals-negation", "arithmetic", "increment-decrement",
	"logical", "boolean-literal", "statement-removal", "sql-literal",
}

func (o Operator) String() string {
	if o < OperatorCount {
		return operatorNames[o]
	}
	return fmt.Sprintf("operator(%d)", uint8(o))
}

// ParseOperator reads an operator's name.
func ParseOperator(s string) (Operator, error) {
	for o := range OperatorCount {
		if operatorNames[o] == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("unknown mutation operator %q", s)
}

// swaps maps each token an operator replaces to its replacement. A
// relation gets two mutants: across the boundary and negated.
var swaps = [OperatorCount]map[token.Token]token.Token{
	CondBoundary: {token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR},
	CondNegation: {
		token.EQL: token.NEQ, token.NEQ: token.EQL,
		token.LSS: token.GEQ, token.LEQ: token.GTR, token.GTR: token.LEQ, token.GEQ: token.LSS,
	},
	Arithmetic: {
		token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL,
		token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN,
		token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN, token.REM_ASSIGN: token.MUL_ASSIGN,
	},
	IncDec:  {token.INC: token.DEC, token.DEC: token.INC},
	Logical: {token.LAND: token.LOR, token.LOR: token.LAND},
}
