package dev.exactly.citus;

import dev.exactly.citus.PgNodeTree.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks Citus makes of a write (INSERT, UPDATE, DELETE) on one of its tables before it plans
 * it, applied to the query tree PostgreSQL's parser made of a statement, so that a statement
 * Citus would refuse is found without a cluster. They follow Citus' router planner
 * ({@code ModifyPartialQuerySupported}, {@code MasterIrreducibleExpression} and
 * {@code SingleShardUpdateDeleteSupported} in src/backend/distributed/planner/
 * multi_router_planner.c, Citus 13) and its regression test multi_function_evaluation:
 *
 * <ul>
 * <li>a CASE or COALESCE with a non-immutable function anywhere in it (its sub-selects included),
 *     in an UPDATE's SET list or a write's WHERE clause: "non-IMMUTABLE functions are not allowed in
 *     CASE or COALESCE statements" (0A000). Here also in an INSERT's values, which Citus 13 would
 *     evaluate on the coordinator instead: stricter, so the project's writes read the same
 *     whichever kind they are;</li>
 * <li>a stable function or operator given a column, directly or through other expressions, in an
 *     UPDATE's SET list or a write's WHERE clause (outside sub-selects): "STABLE functions used in
 *     UPDATE queries cannot be called with column references";</li>
 * <li>a volatile function in an UPDATE's SET list, a write's WHERE clause, anywhere in an
 *     UPDATE or DELETE, or anywhere in an INSERT ... SELECT: "functions used in UPDATE queries on
 *     distributed tables must not be VOLATILE", "volatile functions are not allowed in INSERT ...
 *     SELECT queries";</li>
 * <li>a non-immutable function in RETURNING: "non-IMMUTABLE functions are not allowed in the
 *     RETURNING clause";</li>
 * <li>a non-immutable function in ON CONFLICT's DO UPDATE SET (other than a plain column) or its
 *     WHERE clauses.</li>
 * </ul>
 *
 * A function is what PostgreSQL's {@code check_functions_in_node} finds in a node (a function
 * call, an operator's function, a cast through text's I/O functions, ...), with the volatility
 * {@code pg_proc.provolatile} gives it; a plain value (a constant, a parameter, a PL/pgSQL
 * variable) is immutable. Modifying CTEs are checked as writes of their own, as Citus plans them.
 */
final class DistributedWriteRules {

    /**
     * What the rules need of the catalog.
     *
     * @param volatility   pg_proc oid to provolatile ('i', 's' or 'v')
     * @param operatorCode pg_operator oid to its function (oprcode)
     * @param typeInput    pg_type oid to typinput
     * @param typeOutput   pg_type oid to typoutput
     * @param citusTables  oids of the tables distribute.sql distributes or makes reference tables
     */
    record Catalog(Map<Long, Character> volatility, Map<Long, Long> operatorCode, Map<Long, Long> typeInput,
                   Map<Long, Long> typeOutput, Set<Long> citusTables) {
    }

    private static final int UPDATE = 2;
    private static final int INSERT = 3;
    private static final int DELETE = 4;

    private final Catalog catalog;

    DistributedWriteRules(Catalog catalog) {
        this.catalog = catalog;
    }

    /**
     * @param query an analysed query (the root of a parse tree)
     * @return what Citus would refuse in it, one line each; empty when nothing
     */
    List<String> violations(Node query) {
        List<String> out = new ArrayList<>();
        check(query, out);
        return out;
    }

    private void check(Node query, List<String> out) {
        for (Object cte : query.list("cteList")) {
            if (cte instanceof Node c && c.node("ctequery") != null) {
                check(c.node("ctequery"), out);
            }
        }
        int command = (int) query.number("commandType");
        if (command != UPDATE && command != INSERT && command != DELETE) {
            return;
        }
        long result = query.number("resultRelation");
        Node rte = (Node) query.list("rtable").get((int) result - 1);
        if (!catalog.citusTables().contains(rte.number("relid"))) {
            return;
        }
        String what = switch (command) {
            case UPDATE -> "UPDATE";
            case INSERT -> "INSERT";
            default -> "DELETE";
        };
        State state = new State();
        for (Object o : query.list("targetList")) {
            Node te = (Node) o;
            if (te.flag("resjunk")) {
                continue;
            }
            Node expr = te.node("expr");
            if (command == UPDATE) {
                if (contains(expr, 'v')) {
                    out.add(what + ": a VOLATILE function in SET " + te.get("resname"));
                }
                irreducible(expr, state);
            } else if (command == INSERT) {
                badCoalesceOnly(expr, state);
            }
        }
        Node jointree = query.node("jointree");
        Node quals = jointree == null ? null : jointree.node("quals");
        if (quals != null) {
            if (contains(quals, 'v')) {
                out.add(what + ": a VOLATILE function in the WHERE clause");
            } else {
                irreducible(quals, state);
            }
        }
        if (command == INSERT && jointree != null && !jointree.list("fromlist").isEmpty() && contains(query, 'v')) {
            out.add(what + ": a VOLATILE function in INSERT ... SELECT");
        }
        if ((command == UPDATE || command == DELETE) && contains(query, 'v')) {
            out.add(what + ": a VOLATILE function (must not be VOLATILE anywhere in an UPDATE or DELETE)");
        }
        if (state.varArgument) {
            out.add(what + ": a STABLE function called with a column reference");
        }
        if (state.badCoalesce) {
            out.add(what + ": a non-IMMUTABLE function in a CASE or COALESCE");
        }
        for (Object o : query.list("returningList")) {
            if (containsMutable(((Node) o).node("expr"))) {
                out.add(what + ": a non-IMMUTABLE function in RETURNING " + ((Node) o).get("resname"));
            }
        }
        Node onConflict = query.node("onConflict");
        if (onConflict != null) {
            for (Object o : onConflict.list("onConflictSet")) {
                Node expr = ((Node) o).node("expr");
                if (expr != null && !expr.name().equals("VAR") && containsMutable(expr)) {
                    out.add(what + ": a non-IMMUTABLE function in ON CONFLICT DO UPDATE SET " + ((Node) o).get("resname"));
                }
            }
            if (containsMutable(onConflict.node("arbiterWhere")) || containsMutable(onConflict.node("onConflictWhere"))) {
                out.add(what + ": a non-IMMUTABLE function in an ON CONFLICT WHERE clause");
            }
        }
    }

    /** Flags of Citus' walker over one expression. */
    private static final class State {
        boolean containsVar;
        boolean varArgument;
        boolean badCoalesce;
    }

    /**
     * Citus' {@code MasterIrreducibleExpressionWalker}: a CASE or COALESCE with any mutable
     * function in it is bad; a node whose own functions are stable is bad if a column is below it
     * (outside sub-selects); sub-selects are not entered.
     *
     * @return true when something below is irreducible
     */
    private boolean irreducible(Node e, State state) {
        if (e == null || e.name().equals("QUERY")) {
            return false;
        }
        if (e.name().equals("COALESCEEXPR") || e.name().equals("CASEEXPR")) {
            if (containsMutable(e)) {
                state.badCoalesce = true;
                return true;
            }
            return false;
        }
        if (e.name().equals("VAR")) {
            state.containsVar = true;
            return false;
        }
        char own = ownVolatility(e);
        if (own == 's') {
            State child = new State();
            boolean below = false;
            for (Node c : e.children()) {
                below |= irreducible(c, child);
            }
            if (child.containsVar) {
                state.varArgument = true;
            }
            state.badCoalesce |= child.badCoalesce;
            state.varArgument |= child.varArgument;
            return below || child.containsVar;
        }
        boolean any = false;
        for (Node c : e.children()) {
            any |= irreducible(c, state);
        }
        return any;
    }

    /** Only the CASE/COALESCE part of the walker (an INSERT's values). */
    private void badCoalesceOnly(Node e, State state) {
        if (e == null || e.name().equals("QUERY")) {
            return;
        }
        if ((e.name().equals("COALESCEEXPR") || e.name().equals("CASEEXPR")) && containsMutable(e)) {
            state.badCoalesce = true;
            return;
        }
        for (Node c : e.children()) {
            badCoalesceOnly(c, state);
        }
    }

    /** PostgreSQL's {@code contain_mutable_functions}: anything non-immutable at or below e, sub-selects included. */
    boolean containsMutable(Node e) {
        return contains(e, 's');
    }

    /**
     * Whether e or anything below it (sub-selects included) has a function at least as volatile
     * as {@code level}: 's' finds stable and volatile ones, 'v' volatile ones.
     */
    private boolean contains(Node e, char level) {
        if (e == null) {
            return false;
        }
        char own = ownVolatility(e);
        if (own == 'v' || (level == 's' && own == 's')) {
            return true;
        }
        for (Node c : e.children()) {
            if (contains(c, level)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The most volatile of the functions a node calls itself (PostgreSQL's
     * {@code check_functions_in_node}), 'i' when none: a function call, an operator's function
     * (also IS DISTINCT FROM, NULLIF, op ANY/ALL and row comparisons), a cast through I/O (the
     * source type's output and the target type's input function), an aggregate or window
     * function. The current time or user (CURRENT_TIMESTAMP, ...) is stable; nextval() volatile.
     */
    private char ownVolatility(Node e) {
        List<Long> functions = new ArrayList<>();
        switch (e.name()) {
            case "FUNCEXPR" -> functions.add(e.number("funcid"));
            case "OPEXPR", "DISTINCTEXPR", "NULLIFEXPR", "SCALARARRAYOPEXPR" -> functions.add(e.number("opfuncid"));
            case "AGGREF" -> functions.add(e.number("aggfnoid"));
            case "WINDOWFUNC" -> functions.add(e.number("winfnoid"));
            case "ROWCOMPAREEXPR" -> {
                for (Object o : e.list("opnos")) {
                    if (!o.equals("o")) {
                        functions.add(catalog.operatorCode().getOrDefault(Long.parseLong((String) o), -1L));
                    }
                }
            }
            case "COERCEVIAIO" -> {
                functions.add(catalog.typeInput().getOrDefault(e.number("resulttype"), -1L));
                Long source = exprType(e.node("arg"));
                functions.add(source == null ? -1L : catalog.typeOutput().getOrDefault(source, -1L));
            }
            case "SQLVALUEFUNCTION" -> {
                return 's';
            }
            case "NEXTVALUEEXPR" -> {
                return 'v';
            }
            default -> {
                return 'i';
            }
        }
        char worst = 'i';
        for (long f : functions) {
            // a function the catalog does not know (e.g. a type whose I/O function could not be
            // found) counts as stable: this check must not pass what it cannot see
            char v = catalog.volatility().getOrDefault(f, 's');
            if (v == 'v') {
                return 'v';
            }
            if (v == 's') {
                worst = 's';
            }
        }
        return worst;
    }

    /** The type of an expression node, where the node says it (PostgreSQL's exprType for the common nodes). */
    private static Long exprType(Node e) {
        if (e == null) {
            return null;
        }
        String field = switch (e.name()) {
            case "VAR" -> "vartype";
            case "CONST" -> "consttype";
            case "PARAM" -> "paramtype";
            case "FUNCEXPR" -> "funcresulttype";
            case "OPEXPR", "NULLIFEXPR" -> "opresulttype";
            case "RELABELTYPE", "COERCEVIAIO", "ARRAYCOERCEEXPR", "COERCETODOMAIN" -> "resulttype";
            case "CASEEXPR" -> "casetype";
            case "COALESCEEXPR" -> "coalescetype";
            case "MINMAXEXPR" -> "minmaxtype";
            case "AGGREF" -> "aggtype";
            case "SUBSCRIPTINGREF" -> "refrestype";
            case "BOOLEXPR", "NULLTEST", "BOOLEANTEST", "DISTINCTEXPR", "SCALARARRAYOPEXPR" -> null;
            default -> null;
        };
        if (field == null) {
            return switch (e.name()) {
                case "BOOLEXPR", "NULLTEST", "BOOLEANTEST", "DISTINCTEXPR", "SCALARARRAYOPEXPR" -> 16L; // bool
                default -> null;
            };
        }
        return e.number(field);
    }
}
