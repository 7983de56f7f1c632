# mk/matrix.mk — the implementations matrix (included by the Makefile).

## matrix-deps: npm ci the pinned structured-output libraries of matrix/package-lock.json into matrix/node_modules
matrix-deps:
	sh matrix/install.sh

## matrix: run every implementation (adapters/*) over corpus/loop, corpus/stream and corpus/field; regenerate docs/matrix.md (not part of make test)
matrix: $(GAUNTLET) $(ADAPTER_BIN)
	@GAUNTLET=$(GAUNTLET) sh matrix/run.sh

## matrix-column NAME=COLUMN: run one column of make matrix alone into build/matrix/columns/COLUMN.json (a CI job per library)
matrix-column: $(GAUNTLET) $(ADAPTER_BIN)
	@[ -n "$(NAME)" ] || { echo "make matrix-column: NAME=COLUMN is needed (MATRIX_LIST=1 sh matrix/run.sh lists them)" >&2; exit 2; }
	@GAUNTLET=$(GAUNTLET) MATRIX_TARGETS="$(NAME)" MATRIX_COLUMN_ONLY=1 sh matrix/run.sh

## matrix-merge: merge build/matrix/columns/*.json into docs/matrix.md, build/matrix/matrix.json and matrix.html (no npm)
matrix-merge: $(GAUNTLET)
	@GAUNTLET=$(GAUNTLET) MATRIX_MERGE=1 sh matrix/run.sh
