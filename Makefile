# Fray: the two quick-start commands are `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The Node dev tools (openapi-typescript, tsc) tests/api/test_generated_clients.py runs.
TYPEGEN := tools/typegen
NODE_STAMP := $(TYPEGEN)/node_modules/.installed
# The TypeScript client (clients/typescript/README.md): its types are generated from the specs.
TS_CLIENT := clients/typescript
TS_CLIENT_STAMP := $(TS_CLIENT)/node_modules/.installed
# The table view (clients/table/README.md): built by Vite into service/api/static/table/assets/,
# committed, so a fresh clone's `make run` serves it without Node.
TABLE := clients/table
TABLE_STAMP := $(TABLE)/node_modules/.installed

.PHONY: run test lint typecheck unit coverage docs client-types golden bench fuzz soak chaos clean vendor-graphiql table table-screenshots

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

$(NODE_STAMP): $(TYPEGEN)/package-lock.json
	cd $(TYPEGEN) && npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

$(TS_CLIENT_STAMP): $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund
	touch $(TS_CLIENT_STAMP)

$(TABLE_STAMP): $(TABLE)/package-lock.json
	cd $(TABLE) && npm ci --no-audit --no-fund
	touch $(TABLE_STAMP)

run: $(STAMP)
	$(BIN)/fray dev

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Branch coverage is measured on every run (the `fray serve` and `fray worker` processes the
# tests start included) and the run fails under the floor in pyproject.toml.
unit: $(STAMP) $(NODE_STAMP)
	$(BIN)/pytest -n auto -q --cov --cov-report=

coverage: $(STAMP) $(NODE_STAMP)
	$(BIN)/pytest -n auto -q --cov --cov-report=term --cov-report=html:htmlcov
	@echo "line by line: htmlcov/index.html"

test: lint typecheck unit

# The derived parts of the docs and specs: the tables of docs/api.md (from the envelope and
# the error catalogue), the OpenAPI document, the GraphQL schema and the rulesets' JSON Schemas.
docs: $(STAMP)
	$(BIN)/python -m service.api.doctables docs/api.md
	$(BIN)/python -m service.api.ruletables
	$(BIN)/fray openapi > openapi/openapi.yaml
	$(BIN)/fray schema > schema/schema.graphql
	$(BIN)/fray schemas schema/
	$(MAKE) client-types

# The TypeScript client's generated types (clients/typescript/src/generated/), from
# openapi/openapi.yaml and schema/; tests/clients/test_typescript.py fails when they drift.
client-types: $(TS_CLIENT_STAMP)
	cd $(TS_CLIENT) && node scripts/generate.mjs

# The table view's assets, built from clients/table (and the client's sources) with the
# committed lock file; tests/api/test_table.py fails when the committed ones drift.
table: $(TABLE_STAMP)
	cd $(TABLE) && npm run build

# The table view's screenshots the README links (docs/table/), taken by its browser test.
table-screenshots: $(STAMP)
	FRAY_TABLE_SCREENSHOTS=docs/table $(BIN)/pytest -q -p no:cacheprovider \
		tests/e2e/test_table_browser.py tests/e2e/test_table_map.py -k "gm_and_a_player or moves"

# GraphiQL's vendored assets, from npm at the versions pinned in the script (its README says
# more): service/api/static/graphiql/vendor/.
vendor-graphiql:
	service/api/static/graphiql/vendor/refresh.sh

# Record the golden streams that are missing (tests/fixtures/streams/README.md). One that
# exists is re-recorded only by name with --force: `make golden FORCE="--force NAME"`.
golden: $(STAMP)
	$(BIN)/python -m tests.fixtures.streams.record $(FORCE)

bench: $(STAMP)
	$(BIN)/python -m bench

fuzz: $(STAMP)
	FRAY_FUZZ=1 $(BIN)/pytest -q -n auto tests/api/test_schemathesis.py \
		tests/api/test_schemathesis_graphql.py tests/api/test_hostile_commands.py

soak: $(STAMP)
	FRAY_SOAK=1 $(BIN)/pytest -q -s -m soak tests

# A Redis Cluster master killed under load, with and without FRAY_REDIS_WAIT_REPLICAS
# (tests/cluster/test_failover.py): the acknowledged commands lost, printed.
chaos: $(STAMP)
	$(BIN)/pytest -q -s -m chaos tests/cluster

clean:
	rm -rf $(VENV) $(TYPEGEN)/node_modules $(TS_CLIENT)/node_modules $(TS_CLIENT)/dist $(TS_CLIENT)/dist-test .mypy_cache .ruff_cache .pytest_cache .coverage .coverage.* htmlcov
