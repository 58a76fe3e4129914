/// What operators ask through the control socket and by signals (SIGHUP), and what they are
/// answered and shown.
extension SupervisionMachine {
    mutating func answer(_ request: ControlRequest, from client: Int) {
        switch request {
        case .status:
            act(.answer(client: client, .status(status)))
        case .wait:
            switch state {
            case .stopping, .finished:
                act(.answer(client: client, .refused(.hostStopping)))
            case .starting, .serving, .recovering, .backingOff, .upgrading, .upgradingHost:
                act(operators.handle(.waits(client: client)))
            }
        case .metrics:
            act(.answer(client: client, .metrics(status)))
        case .follow:
            // What a follower is shown first is the status now; what it is shown next is what
            // changed from it.
            act(operators.handle(.follows(client: client, status: status)))
        case .reload:
            switch state {
            case .stopping, .finished:
                act(.answer(client: client, .refused(.hostStopping)))
            case .starting, .serving, .recovering, .backingOff, .upgrading, .upgradingHost:
                reloadRequested(by: client)
            }
        case .restart(let names):
            restart(names, for: client)
        case .accept(let names):
            accept(names, for: client)
        case .rollBack(let names, let version):
            rollBack(names, to: version, for: client)
        case .stop:
            act(operators.handle(.stopAsked(client: client)))
            switch state {
            case .stopping, .finished:
                break
            case .starting, .serving, .recovering, .backingOff, .upgrading, .upgradingHost:
                beginStop(.terminate, askedByOperator: true)
            }
        case .upgradeHost:
            hostUpgradeAsked(by: client)
        }
    }

    // MARK: Reloads

    /// SIGHUP, or `plugin-host reload` by `client`: a reload joins the one that waits; it
    /// begins once a generation serves and no reload is under way.
    mutating func reloadRequested(by client: Int?) {
        switch state {
        case .starting, .serving, .recovering, .backingOff, .upgrading, .upgradingHost:
            act(operators.handle(.reloadAsked(by: client, serving: servingGeneration)))
        case .stopping, .finished:
            break
        }
    }

    /// Asks the serving generation for the reload that waits, when none is under way: SIGHUP
    /// and `plugin-host reload` during a start, a restart or an upgrade are never lost, and any
    /// number of them asked meanwhile are one reload. A reload is of the configuration: the
    /// worker reads it again and rescans, and a build left out stays out (only a changed file
    /// or an operator's restart naming its plugin tries it again).
    mutating func beginWaitingReload() {
        guard let serving = servingGeneration else { return }
        act(operators.handle(.serves(serving)))
    }

    // MARK: Restarts

    /// `plugin-host restart [PLUGIN...]`: the plugins named are no longer left out, and a new
    /// generation takes over as an upgrade does: it loads beside the serving one, which keeps
    /// serving until then. A restart waiting out its backoff starts at once.
    ///
    /// While a generation serves, the driver first checks the files on disk
    /// (``SupervisionAction/checkRestart(client:builds:running:)``): a restart that would
    /// leave a running plugin outside its versions is refused before anything starts
    /// (``restartChecked(for:problems:)``).
    mutating func restart(_ names: [String], for client: Int) {
        let unknown = names.filter { ledger[$0] == nil }
        guard unknown.isEmpty else {
            act(.answer(client: client, .refused(.unknownPlugins(unknown))))
            return
        }
        switch state {
        case .serving where hasDrainingGeneration:
            act(.answer(client: client, .refused(.generationDrains)))
        case .serving(let serving):
            var builds = ledger.selection
            builds.excluded.removeAll { names.contains($0.name) }
            let running = (generations[serving]?.running ?? []).map(\.name)
            act(operators.handle(.restartAwaitsCheck(names: names, client: client)))
            act(.checkRestart(client: client, builds: builds, running: running))
        case .backingOff(_, let cause):
            ledger.handle(.forgiven(names))
            _ = restarts.handle(.startedByOperator, at: now)
            let started = startGeneration(cause)
            enter(.recovering(started))
            act(operators.handle(.restartStarted(generation: started, client: client)))
        case .starting, .recovering, .upgrading:
            act(.answer(client: client, .refused(.generationStarting)))
        case .upgradingHost:
            act(.answer(client: client, .refused(.hostUpgradeUnderWay)))
        case .stopping, .finished:
            act(.answer(client: client, .refused(.hostStopping)))
        }
    }

    /// The driver checked the files on disk for `client`'s restart: what they would break of
    /// the running plugins (version mismatches). A restart that breaks nothing goes ahead; one
    /// that does is refused, and the serving generation is not disturbed.
    mutating func restartChecked(for client: Int, problems: [String]) {
        guard let names = operators.takeRestartCheck(of: client) else { return }
        guard case .serving(let serving) = state else {
            act(.answer(client: client, .refused(.noLongerServes)))
            return
        }
        guard problems.isEmpty else {
            act(.answer(client: client, .refused(.restartWouldBreak(problems))))
            return
        }
        ledger.handle(.forgiven(names))
        let candidate = startUpgrade(of: serving, cause: .operatorRestart)
        act(operators.handle(.restartStarted(generation: candidate, client: client)))
    }

    /// The generation that serves, if one does: a reload is asked of it.
    var servingGeneration: Int? {
        if case .serving(let number) = state { number } else { nil }
    }

    // MARK: After every event

    /// Tells operators what the event changed for them: the clients that follow the host are
    /// shown what changed, when something did; then the clients that wait for the host to
    /// serve are answered, once a generation serves (its worker alive and ready, not being
    /// ended) and none is on its way in, with the same status the followers were shown.
    mutating func tellOperators() {
        guard operators.hasFollowers || operators.hasWaiters else { return }
        let current = status
        if operators.hasFollowers { act(operators.handle(.statusIs(current, at: now))) }
        if operators.hasWaiters, case .serving(let number) = state, generations[number]?.life == .serving {
            act(operators.handle(.servesSteadily(current)))
        }
    }
}
