package check

import (
	"github.com/yuin/gopher-lua/ast"
)

// collectAssigned lists the globals a chunk assigns anywhere (a global
// function defined below its first use is not unknown), and the fields of
// global tables it assigns. A name assigned in any function counts, even
// where a local of that name is in scope: check reports less rather than
// a read that may be fine.
func collectAssigned(stmts []ast.Stmt, globals, fields map[string]bool) {
	target := func(e ast.Expr) {
		switch t := e.(type) {
		case *ast.IdentExpr:
			globals[t.Value] = true
		case *ast.AttrGetExpr:
			if o, ok := t.Object.(*ast.IdentExpr); ok {
				if k, ok := t.Key.(*ast.StringExpr); ok {
					fields[o.Value+"."+k.Value] = true
				}
			}
		}
	}
	visitStmts(stmts, func(s ast.Stmt) {
		switch s := s.(type) {
		case *ast.AssignStmt:
			for _, l := range s.Lhs {
				target(l)
			}
		case *ast.FuncDefStmt:
			if s.Name.Receiver == nil {
				target(s.Name.Func)
			}
		}
	})
}

// visitStmts calls fn on every statement of stmts and of every block and
// function inside them.
func visitStmts(stmts []ast.Stmt, fn func(ast.Stmt)) {
	for _, s := range stmts {
		fn(s)
		switch s := s.(type) {
		case *ast.LocalAssignStmt:
			visitExprs(s.Exprs, fn)
		case *ast.AssignStmt:
			visitExprs(s.Lhs, fn)
			visitExprs(s.Rhs, fn)
		case *ast.FuncCallStmt:
			visitExpr(s.Expr, fn)
		case *ast.DoBlockStmt:
			visitStmts(s.Stmts, fn)
		case *ast.WhileStmt:
			visitExpr(s.Condition, fn)
			visitStmts(s.Stmts, fn)
		case *ast.RepeatStmt:
			visitStmts(s.Stmts, fn)
			visitExpr(s.Condition, fn)
		case *ast.IfStmt:
			visitExpr(s.Condition, fn)
			visitStmts(s.Then, fn)
			visitStmts(s.Else, fn)
		case *ast.NumberForStmt:
			visitExprs([]ast.Expr{s.Init, s.Limit, s.Step}, fn)
			visitStmts(s.Stmts, fn)
		case *ast.GenericForStmt:
			visitExprs(s.Exprs, fn)
			visitStmts(s.Stmts, fn)
		case *ast.FuncDefStmt:
			visitStmts(s.Func.Stmts, fn)
		case *ast.ReturnStmt:
			visitExprs(s.Exprs, fn)
		}
	}
}

func visitExprs(es []ast.Expr, fn func(ast.Stmt)) {
	for _, e := range es {
		visitExpr(e, fn)
	}
}

// visitExpr finds the functions inside an expression and visits their bodies.
func visitExpr(e ast.Expr, fn func(ast.Stmt)) {
	switch e := e.(type) {
	case *ast.FunctionExpr:
		visitStmts(e.Stmts, fn)
	case *ast.FuncCallExpr:
		visitExprs([]ast.Expr{e.Func, e.Receiver}, fn)
		visitExprs(e.Args, fn)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			visitExprs([]ast.Expr{f.Key, f.Value}, fn)
		}
	case *ast.AttrGetExpr:
		visitExprs([]ast.Expr{e.Object, e.Key}, fn)
	case *ast.LogicalOpExpr:
		visitExprs([]ast.Expr{e.Lhs, e.Rhs}, fn)
	case *ast.RelationalOpExpr:
		visitExprs([]ast.Expr{e.Lhs, e.Rhs}, fn)
	case *ast.StringConcatOpExpr:
		visitExprs([]ast.Expr{e.Lhs, e.Rhs}, fn)
	case *ast.ArithmeticOpExpr:
		visitExprs([]ast.Expr{e.Lhs, e.Rhs}, fn)
	case *ast.UnaryMinusOpExpr:
		visitExpr(e.Expr, fn)
	case *ast.UnaryNotOpExpr:
		visitExpr(e.Expr, fn)
	case *ast.UnaryLenOpExpr:
		visitExpr(e.Expr, fn)
	}
}
