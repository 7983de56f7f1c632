# Mutation testing of the corpus (docs/mutation.md): not part of `make test`.
.PHONY: mutation

## mutation: break the reference on purpose and count the mutants the corpus kills (MUTATION_SEED, MUTATION_SAMPLE, MUTATION_FILES, MUTATION_TARGET, MUTATION_JOBS)
mutation:
	$(MAKE) BUILD=build/mutation build/mutation/gauntlet build/mutation/adapters/gauntlet-adapter-reference
	python3 scripts/mutation.py --build build/mutation --json build/mutation/results.json
