# Meridian — `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help
export npm_config_nodedir ?= /usr
export KAFKAJS_NO_PARTITIONER_WARNING := 1
BIN := node_modules/.bin
PORT ?= 8080

.PHONY: help deps system proto build web start kafka cluster test lint typecheck config-docs bench e2e up up-observability down clean

help: ## List every target with one line each
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

deps: ## Install npm packages when node_modules is missing or stale (npm ci)
	@scripts/ensure-deps.sh

system: ## Install Chromium and Redis from Debian when missing, start Redis (tests need both)
	@scripts/ensure-system.sh

proto: deps ## Regenerate TypeScript from proto/ (ts-proto via buf, offline)
	cd proto && ../$(BIN)/buf generate

build: deps ## Type-check the servers and build the SPA into web/dist
	$(BIN)/tsc -p tsconfig.json --noEmit
	cd web && ../$(BIN)/vite build --logLevel warn

web: deps ## Build the SPA into web/dist when its sources are newer
	@[ -f web/dist/index.html ] && [ -z "$$(find web/src web/index.html -newer web/dist/index.html -print -quit)" ] || (cd web && ../$(BIN)/vite build --logLevel warn)

start: web ## Build and run everything in one process on embedded adapters: http://localhost:8080
	PORT=$(PORT) node --import tsx services/standalone/src/main.ts

kafka: deps ## A real Kafka broker (KRaft, official jars via Maven) on 127.0.0.1:9092; prints KAFKA_BROKERS=...
	@scripts/ensure-system.sh kafka
	$(BIN)/tsx scripts/kafka/broker.ts

cluster: web ## Production topology without containers: Kafka, Redis, each service its own process (CLUSTER_REPLICAS of each, default 1), gateways :8080 and :8081
	@scripts/ensure-system.sh redis kafka
	CLUSTER_REPLICAS=$(or $(CLUSTER_REPLICAS),1) $(BIN)/tsx scripts/cluster/cluster.ts

test: deps system ## Every check and test suite; ends with "N passed, N failed, N skipped"
	node scripts/test.mjs

e2e: deps system ## Only the browser journeys (headless Chromium against the standalone target)
	cd web && ../$(BIN)/vite build --logLevel warn
	$(BIN)/vitest run --project e2e

lint: deps ## ESLint with the layer rules of eslint.config.js, and Prettier's check of formatting
	$(BIN)/eslint . --max-warnings=0
	$(BIN)/prettier --check . --log-level warn

config-docs: deps ## Write docs/CONVENTIONS.md's table of environment variables from the config schemas (zod)
	$(BIN)/tsx scripts/configDocs.ts

typecheck: deps ## tsc over servers and web
	$(BIN)/tsc -p tsconfig.json --noEmit
	$(BIN)/tsc -p web/tsconfig.json --noEmit

bench: deps system ## Benchmarks; prints ratios against baselines measured in the same run
	$(BIN)/tsx bench/run.ts

up: ## docker compose: Kafka, MongoDB, Redis, Mailpit, every service, gateway (needs a Docker engine)
	docker compose up --build -d
	@echo "Meridian: http://localhost:8080   Mailpit: http://localhost:8025"

# docker-compose.yml with the observability containers of infra/compose.observability.yml laid over it
COMPOSE_OBSERVABILITY = docker compose -f docker-compose.yml -f infra/compose.observability.yml --profile observability

up-observability: dotenv ## docker compose with Prometheus (127.0.0.1:9090), Grafana (:3000), Jaeger (:16686), an OTel collector and exporters
	OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318 $(COMPOSE_OBSERVABILITY) up --build -d

down: ## Stop docker compose (the observability containers too)
	$(COMPOSE_OBSERVABILITY) down

clean: ## Remove build output and local data
	rm -rf web/dist data artifacts

# --- operations: compose secrets, backups of the embedded store, Kubernetes manifests ---
.PHONY: dotenv backup restore manifests seed verify-ledger dlq dlq-redrive chaos migrate

dotenv: ## Write .env with generated secrets and the first admin for docker compose; never overwrites one
	@node scripts/dotenv.mjs

up: dotenv

backup: deps ## Online, consistent backup of the standalone's data (DATA_DIR, default data) into BACKUP_DIR (backups)/meridian-<time>
	$(BIN)/tsx scripts/backup.ts backup

restore: deps ## Put a backup back into DATA_DIR, refused while the standalone runs (BACKUP=<folder>, default the newest)
	$(BIN)/tsx scripts/backup.ts restore $(BACKUP)

seed: deps ## Fill DATA_DIR through the services' own commands (USERS=1000 POSTINGS=10000; resumable, idempotent)
	USERS=$(or $(USERS),1000) POSTINGS=$(or $(POSTINGS),10000) $(BIN)/tsx scripts/seed.ts

chaos: deps system ## The nemesis on the cluster: a mixed workload while processes die (CHAOS_MINUTES, default 3)
	@scripts/ensure-system.sh redis kafka
	CHAOS_MINUTES=$(or $(CHAOS_MINUTES),3) $(BIN)/vitest run --project cluster tests/cluster/chaos.int.spec.ts

dlq: deps ## List the event bus's dead letters per topic with their reasons (KAFKA_BROKERS, else DATA_DIR's bus)
	$(BIN)/tsx scripts/dlq.ts list $(TOPIC)

dlq-redrive: deps ## Put dead letters back on their topic: TOPIC=… [ID=id1,id2] (KAFKA_BROKERS, else DATA_DIR's bus)
	$(BIN)/tsx scripts/dlq.ts redrive $(TOPIC) $(ID)

verify-ledger: deps ## Recompute every user's ledger hash chain and balances from genesis (DATA_DIR, default data); exit 1 on the first broken link
	$(BIN)/tsx scripts/verify-ledger.ts

migrate: deps ## Move the data to another topology through the stores' port: FROM=standalone:data TO=cluster:data/cluster (KAFKA_BROKERS)
	$(BIN)/tsx scripts/migrate.ts $(FROM) $(TO)

manifests: deps ## Build every infra/k8s kustomization with kustomize, validate it offline, write artifacts/k8s/*.yaml
	$(BIN)/tsx scripts/k8s/render.ts

.PHONY: fuzz
fuzz: deps system ## Longer fuzzing of every gateway route (FUZZ_RUNS per route and caller, default 100; FUZZ_SEED replays)
	FUZZ_RUNS=$${FUZZ_RUNS:-100} $(BIN)/vitest run --project server gateway/src/fuzz.int.spec.ts
