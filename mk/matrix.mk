# mk/matrix.mk — the implementations matrix (included by the Makefile).

## matrix-deps: npm ci the pinned structured-output libraries of matrix/package-lock.json into matrix/node_modules
matrix-deps:
	sh matrix/install.sh

## matrix: run every implementation (adapters/*) over corpus/loop and corpus/stream; regenerate docs/matrix.md (not part of make test)
matrix: $(GAUNTLET) $(ADAPTER_BIN)
	@GAUNTLET=$(GAUNTLET) sh matrix/run.sh
