/* eslint-disable */
import * as types from './graphql';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment ConsolePageInfo on PageInfo {\n    hasNextPage\n    endCursor\n  }\n": typeof types.ConsolePageInfoFragmentDoc,
    "\n  query ConsoleSignedIn {\n    me {\n      agentId\n      name\n    }\n  }\n": typeof types.ConsoleSignedInDocument,
    "\n  subscription ConsoleAgentEventTypes {\n    agentEvents {\n      id\n      type\n    }\n  }\n": typeof types.ConsoleAgentEventTypesDocument,
    "\n  mutation ConsoleExecute($input: ExecuteInput!) {\n    execute(input: $input) {\n      executionId\n      status\n    }\n  }\n": typeof types.ConsoleExecuteDocument,
    "\n  query ConsoleExecution($id: ID!) {\n    node(id: $id) {\n      ... on Execution {\n        executionId\n        capability\n        status\n        mode\n        costCents\n        latencyMs\n        error\n        result\n        createdAt\n        serviceId\n        attempts {\n          ordinal\n          serviceKey\n          outcome\n          reason\n          statusCode\n          score\n          priceCents\n          latencyMs\n        }\n      }\n    }\n  }\n": typeof types.ConsoleExecutionDocument,
    "\n  query ConsoleRankingNow($capability: String!) {\n    providers(capability: $capability, limit: 100) {\n      matches {\n        serviceKey\n        name\n        score\n        scoreBreakdown {\n          reputation\n          cost\n          reliability\n          latency\n          freshness\n        }\n      }\n    }\n  }\n": typeof types.ConsoleRankingNowDocument,
    "\n  query ConsoleExecutionReceipt($executionId: ID!) {\n    executionReceipt(executionId: $executionId) {\n      signedReceipt\n      claims\n    }\n  }\n": typeof types.ConsoleExecutionReceiptDocument,
    "\n  query ConsoleExecutions($after: String) {\n    myExecutions(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        executionId\n        capability\n        status\n        mode\n        costCents\n        latencyMs\n        createdAt\n        attempts {\n          ordinal\n        }\n      }\n    }\n  }\n": typeof types.ConsoleExecutionsDocument,
    "\n  query ConsoleKeys($after: String) {\n    myKeys(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        subKeyId\n        hint\n        serviceKey\n        serviceName\n        status\n        permissions\n        expiresAt\n        gracePeriodEnds\n        createdAt\n      }\n    }\n  }\n": typeof types.ConsoleKeysDocument,
    "\n  mutation ConsoleProvisionKey($serviceKey: String!) {\n    provisionSubKey(serviceKey: $serviceKey) {\n      subKeyId\n      subKey\n    }\n  }\n": typeof types.ConsoleProvisionKeyDocument,
    "\n  mutation ConsoleRotateKey($id: ID!) {\n    rotateSubKey(id: $id) {\n      subKeyId\n      newSubKey\n      gracePeriodEnds\n    }\n  }\n": typeof types.ConsoleRotateKeyDocument,
    "\n  mutation ConsoleRevokeKey($id: ID!) {\n    revokeSubKey(id: $id) {\n      subKeyId\n      revoked\n    }\n  }\n": typeof types.ConsoleRevokeKeyDocument,
    "\n  query ConsoleMandates {\n    granted: mandates(role: \"granted\", first: 50) {\n      totalCount\n      nodes {\n        ...ConsoleMandate\n      }\n    }\n    held: mandates(role: \"held\", first: 5) {\n      nodes {\n        ...ConsoleMandate\n      }\n    }\n    mySubAgents(first: 100) {\n      nodes {\n        agentId\n        name\n      }\n    }\n  }\n  fragment ConsoleMandate on Mandate {\n    mandateId\n    grantorId\n    agentId\n    perCallCents\n    dailyCents\n    monthlyCents\n    capabilities\n    expiresAt\n    revokedAt\n    inForce\n    today {\n      ...ConsoleMandateUse\n    }\n    thisMonth {\n      ...ConsoleMandateUse\n    }\n  }\n  fragment ConsoleMandateUse on MandatePeriodUse {\n    startsOn\n    capCents\n    spentCents\n    heldCents\n    calls\n    remainingCents\n    alerted\n  }\n": typeof types.ConsoleMandatesDocument,
    "\n  mutation ConsoleGrantMandate($input: GrantMandateInput!) {\n    grantMandate(input: $input) {\n      mandateId\n    }\n  }\n": typeof types.ConsoleGrantMandateDocument,
    "\n  mutation ConsoleRevokeMandate($id: ID!) {\n    revokeMandate(id: $id) {\n      mandateId\n      inForce\n    }\n  }\n": typeof types.ConsoleRevokeMandateDocument,
    "\n  query ConsoleMe {\n    me {\n      agentId\n      agentKey\n      name\n      description\n      ownerEmail\n      reputation\n      tier\n      status\n      autonomyLevel\n      authorityScope\n      parentId\n      createdAt\n    }\n    myUsage {\n      totalRequests\n      totalExecutions\n      days\n    }\n  }\n": typeof types.ConsoleMeDocument,
    "\n  query ConsoleSubAgents($after: String) {\n    mySubAgents(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        agentId\n        name\n        parentId\n        autonomyLevel\n        authorityScope\n        status\n        effectiveStatus\n        effectiveStatusImposedBy\n        reputation\n        createdAt\n      }\n    }\n  }\n": typeof types.ConsoleSubAgentsDocument,
    "\n  mutation ConsoleCreateSubAgent($parentId: ID!, $input: CreateSubAgentInput!) {\n    createSubAgent(parentId: $parentId, input: $input) {\n      agentId\n      name\n      masterKey\n    }\n  }\n": typeof types.ConsoleCreateSubAgentDocument,
    "\n  mutation ConsoleRegister($input: RegisterAgentInput!) {\n    registerAgent(input: $input) {\n      agentId\n      name\n      masterKey\n    }\n  }\n": typeof types.ConsoleRegisterDocument,
    "\n  query ConsoleMyServices($after: String) {\n    myServices(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        serviceId\n        serviceKey\n        name\n        description\n        endpoint\n        status\n        capabilities\n        pricingModel\n        costPerCall\n        resumeAt\n        stats {\n          totalCalls\n          successRate\n        }\n      }\n    }\n  }\n": typeof types.ConsoleMyServicesDocument,
    "\n  mutation ConsoleRegisterService($input: RegisterServiceInput!) {\n    registerService(input: $input) {\n      serviceKey\n      name\n      signingSecret\n    }\n  }\n": typeof types.ConsoleRegisterServiceDocument,
    "\n  mutation ConsoleUpdateService($serviceKey: String!, $input: UpdateServiceInput!) {\n    updateService(serviceKey: $serviceKey, input: $input) {\n      serviceKey\n      name\n      description\n      endpoint\n      capabilities\n      costPerCall\n      pricingModel\n    }\n  }\n": typeof types.ConsoleUpdateServiceDocument,
    "\n  mutation ConsolePauseService($serviceKey: String!) {\n    pauseService(serviceKey: $serviceKey) {\n      serviceKey\n      status\n    }\n  }\n": typeof types.ConsolePauseServiceDocument,
    "\n  mutation ConsoleResumeService($serviceKey: String!) {\n    resumeService(serviceKey: $serviceKey) {\n      serviceKey\n      status\n    }\n  }\n": typeof types.ConsoleResumeServiceDocument,
    "\n  query ConsoleWallet($agentId: ID!, $after: String) {\n    wallet(agentId: $agentId) {\n      walletAddress\n      network\n      asset\n      balance\n      held\n      pending\n      available\n      keyCustody\n      createdAt\n    }\n    walletEntries(agentId: $agentId, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        id\n        kind\n        amount\n        reference\n        executionId\n        createdAt\n      }\n    }\n  }\n": typeof types.ConsoleWalletDocument,
    "\n  mutation ConsoleFaucet {\n    sandboxFaucet {\n      credited\n      amount\n      balance\n    }\n  }\n": typeof types.ConsoleFaucetDocument,
    "\n  mutation ConsoleAgentStatus($agentId: ID!, $input: UpdateAgentStatusInput!) {\n    updateAgentStatus(agentId: $agentId, input: $input) {\n      agentId\n      status\n      effectiveStatus\n      updated\n    }\n  }\n": typeof types.ConsoleAgentStatusDocument,
    "\n  query ConsoleAdminAgents($status: AgentStatus, $name: String, $after: String) {\n    adminAgents(status: $status, name: $name, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        agentId\n        name\n        status\n        effectiveStatus\n        effectiveStatusImposedBy\n        parentId\n        reputation\n        createdAt\n      }\n    }\n  }\n": typeof types.ConsoleAdminAgentsDocument,
    "\n  query ConsoleAdminDisputes($status: String, $after: String) {\n    adminDisputes(status: $status, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        disputeId\n        agentId\n        providerAgentId\n        serviceId\n        form\n        type\n        reason\n        description\n        status\n        resolved\n        resolution\n        refundCents\n        priorityResolution\n        createdAt\n      }\n    }\n  }\n": typeof types.ConsoleAdminDisputesDocument,
    "\n  mutation ConsoleResolveDispute($id: ID!, $input: ResolveDisputeInput!) {\n    resolveDispute(id: $id, input: $input) {\n      disputeId\n      status\n      resolved\n      resolution\n      refundCents\n    }\n  }\n": typeof types.ConsoleResolveDisputeDocument,
    "\n  query ConsoleAdminOutbox {\n    adminOutbox {\n      unrelayed\n      oldestUnrelayedSeconds\n      checkedAt\n      kinds {\n        kind\n        pending\n        due\n        sending\n        failed\n        oldestDueSeconds\n      }\n    }\n  }\n": typeof types.ConsoleAdminOutboxDocument,
    "\n  query ConsoleAdminOverview($days: Int) {\n    adminStats {\n      agents {\n        total\n        active\n        suspended\n        banned\n        subAgents\n      }\n      services {\n        total\n        active\n      }\n      executions {\n        total\n        succeeded\n        failed\n        last30d\n      }\n      disputes {\n        total\n        open\n      }\n      subKeys {\n        total\n        live\n      }\n      capabilities\n    }\n    adminRevenue(days: $days) {\n      days\n      totals {\n        executions\n        paidExecutions\n        grossCents\n        refundsCents\n        netCents\n      }\n      fees {\n        asset\n        feeBps\n        fees\n        refunded\n        net\n      }\n      byDay {\n        day\n        grossCents\n        refundsCents\n        netCents\n        fees\n      }\n      byCapability {\n        capability\n        executions\n        grossCents\n        netCents\n      }\n    }\n  }\n": typeof types.ConsoleAdminOverviewDocument,
    "\n  subscription ConsoleAgentEvents {\n    agentEvents {\n      id\n      type\n      createdAt\n      data\n    }\n  }\n": typeof types.ConsoleAgentEventsDocument,
    "\n  subscription ConsoleRadio($after: Int) {\n    radioEvents(after: $after) {\n      sequence\n      eventId\n      channel\n      type\n      createdAt\n      data\n    }\n  }\n": typeof types.ConsoleRadioDocument,
    "\n  subscription ConsoleUto($after: Int) {\n    utoEvents(after: $after) {\n      sequence\n      eventId\n      ticketId\n      domain\n      type\n      createdAt\n      data\n    }\n  }\n": typeof types.ConsoleUtoDocument,
    "\n  query ConsoleAgentProfile($agentId: ID!, $days: Int) {\n    agentReputation(agentId: $agentId) {\n      agentId\n      name\n      reputation\n      tier\n      trustScore\n      calls\n      successes\n      successRate\n      disputes\n      disputesOpen\n      disputesLost\n      reputationEvents30d\n      reputationNet30d\n      history(days: $days) {\n        day\n        score\n        net\n        events\n      }\n    }\n  }\n": typeof types.ConsoleAgentProfileDocument,
    "\n  query ConsoleCatalog {\n    capabilities {\n      total\n      hierarchy {\n        group\n        name\n        capabilities\n      }\n      capabilities {\n        slug\n        name\n        description\n        group\n        serviceCount\n        builtin\n      }\n    }\n  }\n": typeof types.ConsoleCatalogDocument,
    "\n  query ConsoleCapability($slug: String!, $prefer: Prefer, $limit: Int) {\n    capability(slug: $slug) {\n      slug\n      name\n      description\n      category\n      parent\n      providers\n      bestReputation\n      minPriceCents\n      maxPriceCents\n      marketplace {\n        inputSchema\n      }\n    }\n    providers(capability: $slug, prefer: $prefer, limit: $limit) {\n      total\n      totalIsEstimate\n      resolutionTimeMs\n      matches {\n        serviceId\n        serviceKey\n        name\n        providerId\n        providerName\n        reputation\n        costCents\n        pricingModel\n        latencyP50Ms\n        successRate\n        score\n        firstParty\n        health\n        quality {\n          calls\n          successRate\n          uptime24h\n          lowSample\n        }\n        scoreBreakdown {\n          reputation\n          cost\n          reliability\n          latency\n          freshness\n        }\n      }\n    }\n  }\n": typeof types.ConsoleCapabilityDocument,
    "\n  query ConsoleHealth($days: Int) {\n    health {\n      status\n      version\n      uptimeSeconds\n      checkedAt\n      components {\n        database {\n          status\n          kind\n          latencyMs\n        }\n        scheduler {\n          status\n          jobs\n          lastRunAt\n        }\n        sse {\n          status\n          openStreams\n          redis\n        }\n        memory {\n          status\n          rssBytes\n          heapUsedBytes\n          vectorSearch\n        }\n      }\n    }\n    uptime(days: $days) {\n      days\n      uptimePercent\n      minutesObserved\n      minutesUp\n      since\n    }\n  }\n": typeof types.ConsoleHealthDocument,
    "\n  query ConsoleMarketHome {\n    showcase {\n      stats {\n        totalAgents\n        totalServices\n        totalCapabilities\n        totalTransactions\n        totalTransactions30d\n      }\n      topServices {\n        serviceId\n        serviceKey\n        name\n        providerName\n        reputation\n        successes\n        capabilities\n      }\n      recentExecutions {\n        executionId\n        capability\n        serviceName\n        status\n        latencyMs\n        createdAt\n      }\n    }\n  }\n": typeof types.ConsoleMarketHomeDocument,
    "\n  query ConsoleService($serviceKey: String!) {\n    service(serviceKey: $serviceKey) {\n      serviceId\n      serviceKey\n      name\n      description\n      status\n      capabilities\n      languages\n      pricingModel\n      costPerCall\n      createdAt\n      provider {\n        agentId\n        name\n        reputation\n        tier\n      }\n      stats {\n        totalCalls\n        successes\n        failures\n        successRate\n        latencyP50Ms\n        latencyP95Ms\n        lastSuccessAt\n      }\n      health\n      lastFailureReason\n      quality {\n        windowDays\n        calls\n        successRate\n        latencyP50Ms\n        latencyP95Ms\n        uptime24h\n        uptime7d\n        uptime30d\n        probes\n        lowSample\n      }\n      qualityDays {\n        day\n        successes\n        failures\n        probesPassed\n        probesFailed\n        latencyP50Ms\n        latencyP95Ms\n        uptime\n      }\n    }\n  }\n": typeof types.ConsoleServiceDocument,
    "\n  query ConsoleSkill($id: ID!) {\n    skill(id: $id) {\n      skillId\n      name\n      description\n      runtime\n      category\n      entrypoint\n      publishedVersion\n      publishedAt\n      installCount\n      forkCount\n      ownerAgentId\n      instructions\n    }\n  }\n": typeof types.ConsoleSkillDocument,
    "\n  query ConsoleSkills($q: String, $runtime: SkillRuntime, $category: String, $sort: SkillMarketplaceSort, $after: String) {\n    skillMarketplace(q: $q, runtime: $runtime, category: $category, sort: $sort, first: 20, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        skillId\n        name\n        description\n        runtime\n        category\n        version\n        installCount\n        forkCount\n        publishedAt\n      }\n    }\n  }\n": typeof types.ConsoleSkillsDocument,
    "\n  mutation ConsoleTryIt($input: ExecuteInput!) {\n    execute(input: $input) {\n      executionId\n      status\n      error\n      result\n      provider {\n        serviceKey\n        name\n      }\n      transaction {\n        costCents\n        latencyMs\n      }\n      attempts {\n        ordinal\n        serviceKey\n        outcome\n        category\n        reason\n        latencyMs\n      }\n      routing {\n        skipped {\n          serviceKey\n          reason\n          detail\n        }\n      }\n    }\n  }\n": typeof types.ConsoleTryItDocument,
    "\n  query ConsoleWebmcp($q: String, $category: String, $after: String) {\n    webmcpStats {\n      sites\n      totalTools\n      byCategory {\n        category\n        tools\n      }\n    }\n    webmcpTools(q: $q, category: $category, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        name\n        description\n        category\n        siteName\n        siteOrigin\n        manifestUrl\n      }\n    }\n  }\n": typeof types.ConsoleWebmcpDocument,
    "\n  query ConsoleDisputes($after: String) {\n    myDisputes(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        disputeId\n        form\n        type\n        reason\n        description\n        status\n        resolved\n        resolution\n        refundCents\n        serviceId\n        executionId\n        createdAt\n        resolvedAt\n      }\n    }\n  }\n": typeof types.ConsoleDisputesDocument,
    "\n  mutation ConsoleOpenDispute($input: CreateDisputeInput!) {\n    createDispute(input: $input) {\n      disputeId\n      status\n    }\n  }\n": typeof types.ConsoleOpenDisputeDocument,
    "\n  query ConsoleTicket($ticketKey: String!) {\n    ticket(ticketKey: $ticketKey) {\n      ticketKey\n      subject\n      description\n      type\n      priority\n      status\n      resolution\n      targetService\n      agentName\n      createdAt\n      comments {\n        commentId\n        author\n        content\n        createdAt\n      }\n      history {\n        from\n        to\n        at\n        actorKind\n        note\n      }\n    }\n  }\n": typeof types.ConsoleTicketDocument,
    "\n  mutation ConsoleAddTicketComment($ticketKey: String!, $input: TicketCommentInput!) {\n    addTicketComment(ticketKey: $ticketKey, input: $input) {\n      commentId\n    }\n  }\n": typeof types.ConsoleAddTicketCommentDocument,
    "\n  mutation ConsoleMoveTicket($ticketKey: String!, $input: TicketStatusInput!) {\n    updateTicketStatus(ticketKey: $ticketKey, input: $input) {\n      ticketKey\n      status\n    }\n  }\n": typeof types.ConsoleMoveTicketDocument,
    "\n  query ConsoleTickets($status: String, $after: String) {\n    tickets(status: $status, first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        ticketKey\n        subject\n        type\n        priority\n        status\n        targetService\n        createdAt\n        updatedAt\n      }\n    }\n  }\n": typeof types.ConsoleTicketsDocument,
    "\n  mutation ConsoleFileTicket($input: ExecuteInput!) {\n    execute(input: $input) {\n      executionId\n      status\n      error\n      result\n    }\n  }\n": typeof types.ConsoleFileTicketDocument,
    "\n  query ConsoleDeliveries($webhookId: ID!, $status: String, $after: String) {\n    webhook(id: $webhookId) {\n      webhookId\n      url\n      events\n      active\n    }\n    webhookDeliveries(webhookId: $webhookId, status: $status, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        deliveryId\n        eventId\n        eventType\n        status\n        attempts\n        lastStatus\n        lastError\n        nextAttemptAt\n        deliveredAt\n        createdAt\n      }\n    }\n  }\n": typeof types.ConsoleDeliveriesDocument,
    "\n  mutation ConsoleRedeliver($webhookId: ID!, $deliveryId: ID!) {\n    redeliverWebhookDelivery(webhookId: $webhookId, deliveryId: $deliveryId) {\n      deliveryId\n      status\n    }\n  }\n": typeof types.ConsoleRedeliverDocument,
    "\n  mutation ConsoleUpdateWebhook($id: ID!, $input: WebhookInput!) {\n    updateWebhook(id: $id, input: $input) {\n      webhookId\n      url\n      events\n      active\n    }\n  }\n": typeof types.ConsoleUpdateWebhookDocument,
    "\n  mutation ConsoleDeleteWebhook($id: ID!) {\n    deleteWebhook(id: $id) {\n      deleted\n    }\n  }\n": typeof types.ConsoleDeleteWebhookDocument,
    "\n  query ConsoleWebhooks($after: String) {\n    webhooks(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        webhookId\n        url\n        events\n        active\n        disabledReason\n        createdAt\n      }\n    }\n  }\n": typeof types.ConsoleWebhooksDocument,
    "\n  mutation ConsoleCreateWebhook($input: WebhookInput!) {\n    createWebhook(input: $input) {\n      webhookId\n      secret\n    }\n  }\n": typeof types.ConsoleCreateWebhookDocument,
    "\n  query ConsoleMemoryEntries($storeId: ID!, $prefix: String, $after: String) {\n    memoryStore(id: $storeId) {\n      storeId\n      name\n      storeType\n      accessLevel\n    }\n    memoryEntries(storeId: $storeId, prefix: $prefix, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        key\n        version\n        value\n        updatedAt\n        expiresAt\n      }\n    }\n  }\n": typeof types.ConsoleMemoryEntriesDocument,
    "\n  mutation ConsoleWriteMemoryEntry($storeId: ID!, $input: WriteMemoryEntriesInput!) {\n    writeMemoryEntries(storeId: $storeId, input: $input) {\n      written\n    }\n  }\n": typeof types.ConsoleWriteMemoryEntryDocument,
    "\n  mutation ConsoleDeleteMemoryEntry($storeId: ID!, $key: String!) {\n    deleteMemoryEntry(storeId: $storeId, key: $key) {\n      deleted\n    }\n  }\n": typeof types.ConsoleDeleteMemoryEntryDocument,
    "\n  query ConsoleMemoryStores($after: String) {\n    memoryStores(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        storeId\n        name\n        description\n        storeType\n        accessLevel\n        dimensions\n        defaultTtlSeconds\n        createdAt\n      }\n    }\n  }\n": typeof types.ConsoleMemoryStoresDocument,
    "\n  mutation ConsoleCreateMemoryStore($input: CreateMemoryStoreInput!) {\n    createMemoryStore(input: $input) {\n      storeId\n    }\n  }\n": typeof types.ConsoleCreateMemoryStoreDocument,
    "\n  query ConsoleSwarm($id: String!) {\n    swarmSession(id: $id) {\n      sessionId\n      goal\n      strategy\n      status\n      stepCount\n      completedSteps\n      failedSteps\n      createdAt\n      finishedAt\n      steps {\n        stepId\n        ordinal\n        capability\n        status\n        provider\n        attempts\n        costCents\n        error\n        executionId\n        finishedAt\n      }\n    }\n  }\n": typeof types.ConsoleSwarmDocument,
    "\n  subscription ConsoleSwarmEvents($sessionId: String!, $after: Int) {\n    swarmEvents(sessionId: $sessionId, after: $after) {\n      sequence\n      event\n      status\n    }\n  }\n": typeof types.ConsoleSwarmEventsDocument,
    "\n  mutation ConsoleCancelSwarm($id: String!) {\n    cancelSwarmSession(id: $id) {\n      sessionId\n      status\n    }\n  }\n": typeof types.ConsoleCancelSwarmDocument,
    "\n  query ConsoleSwarms($after: String) {\n    swarmSessions(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        sessionId\n        goal\n        strategy\n        status\n        stepCount\n        completedSteps\n        failedSteps\n        createdAt\n      }\n    }\n  }\n": typeof types.ConsoleSwarmsDocument,
    "\n  mutation ConsoleCreateSwarm($input: CreateSwarmSessionInput!) {\n    createSwarmSession(input: $input) {\n      sessionId\n    }\n  }\n": typeof types.ConsoleCreateSwarmDocument,
    "\n  query ConsoleTask($id: String!) {\n    task(id: $id) {\n      taskId\n      intent\n      status\n      successCriteria\n      budget\n      budgetRemaining\n      spent\n      deadline\n      result\n      createdAt\n      completedAt\n      delegations {\n        delegationId\n        subAgentId\n        status\n        createdAt\n        endedAt\n      }\n      executions {\n        taskExecutionId\n        executionId\n        capability\n        status\n        criteriaMet\n        executorDelta\n        createdAt\n      }\n    }\n  }\n": typeof types.ConsoleTaskDocument,
    "\n  mutation ConsoleCancelTask($id: String!) {\n    cancelTask(id: $id) {\n      taskId\n      status\n    }\n  }\n": typeof types.ConsoleCancelTaskDocument,
    "\n  query ConsoleTasks($status: String, $after: String) {\n    tasks(status: $status, first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        taskId\n        intent\n        status\n        budget\n        spent\n        deadline\n        delegateId\n        createdAt\n        executions {\n          taskExecutionId\n        }\n      }\n    }\n  }\n": typeof types.ConsoleTasksDocument,
    "\n  mutation ConsoleCreateTask($input: CreateTaskInput!) {\n    createTask(input: $input) {\n      taskId\n    }\n  }\n": typeof types.ConsoleCreateTaskDocument,
    "\n  query ConsoleUtoTicket($id: String!) {\n    utoTicket(id: $id) {\n      ticketId\n      intent\n      domain\n      state\n      requiredCapabilities\n      maxBudgetUsd\n      deadline\n      context\n      matches\n      stateHistory {\n        from\n        to\n        at\n        by\n        triggeredBy\n        note\n      }\n    }\n  }\n": typeof types.ConsoleUtoTicketDocument,
    "\n  mutation ConsoleAdvanceUtoTicket($id: String!, $input: AdvanceUtoTicketInput!) {\n    advanceUtoTicket(id: $id, input: $input) {\n      ticketId\n      state\n    }\n  }\n": typeof types.ConsoleAdvanceUtoTicketDocument,
    "\n  query ConsoleUtoTickets($state: String, $after: String) {\n    utoTickets(state: $state, first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        ticketId\n        intent\n        domain\n        state\n        requiredCapabilities\n        maxBudgetUsd\n        deadline\n        updatedAt\n      }\n    }\n  }\n": typeof types.ConsoleUtoTicketsDocument,
    "\n  mutation ConsoleCreateUtoTicket($input: CreateUtoTicketInput!) {\n    createUtoTicket(input: $input) {\n      ticketId\n    }\n  }\n": typeof types.ConsoleCreateUtoTicketDocument,
};
const documents: Documents = {
    "\n  fragment ConsolePageInfo on PageInfo {\n    hasNextPage\n    endCursor\n  }\n": types.ConsolePageInfoFragmentDoc,
    "\n  query ConsoleSignedIn {\n    me {\n      agentId\n      name\n    }\n  }\n": types.ConsoleSignedInDocument,
    "\n  subscription ConsoleAgentEventTypes {\n    agentEvents {\n      id\n      type\n    }\n  }\n": types.ConsoleAgentEventTypesDocument,
    "\n  mutation ConsoleExecute($input: ExecuteInput!) {\n    execute(input: $input) {\n      executionId\n      status\n    }\n  }\n": types.ConsoleExecuteDocument,
    "\n  query ConsoleExecution($id: ID!) {\n    node(id: $id) {\n      ... on Execution {\n        executionId\n        capability\n        status\n        mode\n        costCents\n        latencyMs\n        error\n        result\n        createdAt\n        serviceId\n        attempts {\n          ordinal\n          serviceKey\n          outcome\n          reason\n          statusCode\n          score\n          priceCents\n          latencyMs\n        }\n      }\n    }\n  }\n": types.ConsoleExecutionDocument,
    "\n  query ConsoleRankingNow($capability: String!) {\n    providers(capability: $capability, limit: 100) {\n      matches {\n        serviceKey\n        name\n        score\n        scoreBreakdown {\n          reputation\n          cost\n          reliability\n          latency\n          freshness\n        }\n      }\n    }\n  }\n": types.ConsoleRankingNowDocument,
    "\n  query ConsoleExecutionReceipt($executionId: ID!) {\n    executionReceipt(executionId: $executionId) {\n      signedReceipt\n      claims\n    }\n  }\n": types.ConsoleExecutionReceiptDocument,
    "\n  query ConsoleExecutions($after: String) {\n    myExecutions(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        executionId\n        capability\n        status\n        mode\n        costCents\n        latencyMs\n        createdAt\n        attempts {\n          ordinal\n        }\n      }\n    }\n  }\n": types.ConsoleExecutionsDocument,
    "\n  query ConsoleKeys($after: String) {\n    myKeys(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        subKeyId\n        hint\n        serviceKey\n        serviceName\n        status\n        permissions\n        expiresAt\n        gracePeriodEnds\n        createdAt\n      }\n    }\n  }\n": types.ConsoleKeysDocument,
    "\n  mutation ConsoleProvisionKey($serviceKey: String!) {\n    provisionSubKey(serviceKey: $serviceKey) {\n      subKeyId\n      subKey\n    }\n  }\n": types.ConsoleProvisionKeyDocument,
    "\n  mutation ConsoleRotateKey($id: ID!) {\n    rotateSubKey(id: $id) {\n      subKeyId\n      newSubKey\n      gracePeriodEnds\n    }\n  }\n": types.ConsoleRotateKeyDocument,
    "\n  mutation ConsoleRevokeKey($id: ID!) {\n    revokeSubKey(id: $id) {\n      subKeyId\n      revoked\n    }\n  }\n": types.ConsoleRevokeKeyDocument,
    "\n  query ConsoleMandates {\n    granted: mandates(role: \"granted\", first: 50) {\n      totalCount\n      nodes {\n        ...ConsoleMandate\n      }\n    }\n    held: mandates(role: \"held\", first: 5) {\n      nodes {\n        ...ConsoleMandate\n      }\n    }\n    mySubAgents(first: 100) {\n      nodes {\n        agentId\n        name\n      }\n    }\n  }\n  fragment ConsoleMandate on Mandate {\n    mandateId\n    grantorId\n    agentId\n    perCallCents\n    dailyCents\n    monthlyCents\n    capabilities\n    expiresAt\n    revokedAt\n    inForce\n    today {\n      ...ConsoleMandateUse\n    }\n    thisMonth {\n      ...ConsoleMandateUse\n    }\n  }\n  fragment ConsoleMandateUse on MandatePeriodUse {\n    startsOn\n    capCents\n    spentCents\n    heldCents\n    calls\n    remainingCents\n    alerted\n  }\n": types.ConsoleMandatesDocument,
    "\n  mutation ConsoleGrantMandate($input: GrantMandateInput!) {\n    grantMandate(input: $input) {\n      mandateId\n    }\n  }\n": types.ConsoleGrantMandateDocument,
    "\n  mutation ConsoleRevokeMandate($id: ID!) {\n    revokeMandate(id: $id) {\n      mandateId\n      inForce\n    }\n  }\n": types.ConsoleRevokeMandateDocument,
    "\n  query ConsoleMe {\n    me {\n      agentId\n      agentKey\n      name\n      description\n      ownerEmail\n      reputation\n      tier\n      status\n      autonomyLevel\n      authorityScope\n      parentId\n      createdAt\n    }\n    myUsage {\n      totalRequests\n      totalExecutions\n      days\n    }\n  }\n": types.ConsoleMeDocument,
    "\n  query ConsoleSubAgents($after: String) {\n    mySubAgents(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        agentId\n        name\n        parentId\n        autonomyLevel\n        authorityScope\n        status\n        effectiveStatus\n        effectiveStatusImposedBy\n        reputation\n        createdAt\n      }\n    }\n  }\n": types.ConsoleSubAgentsDocument,
    "\n  mutation ConsoleCreateSubAgent($parentId: ID!, $input: CreateSubAgentInput!) {\n    createSubAgent(parentId: $parentId, input: $input) {\n      agentId\n      name\n      masterKey\n    }\n  }\n": types.ConsoleCreateSubAgentDocument,
    "\n  mutation ConsoleRegister($input: RegisterAgentInput!) {\n    registerAgent(input: $input) {\n      agentId\n      name\n      masterKey\n    }\n  }\n": types.ConsoleRegisterDocument,
    "\n  query ConsoleMyServices($after: String) {\n    myServices(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        serviceId\n        serviceKey\n        name\n        description\n        endpoint\n        status\n        capabilities\n        pricingModel\n        costPerCall\n        resumeAt\n        stats {\n          totalCalls\n          successRate\n        }\n      }\n    }\n  }\n": types.ConsoleMyServicesDocument,
    "\n  mutation ConsoleRegisterService($input: RegisterServiceInput!) {\n    registerService(input: $input) {\n      serviceKey\n      name\n      signingSecret\n    }\n  }\n": types.ConsoleRegisterServiceDocument,
    "\n  mutation ConsoleUpdateService($serviceKey: String!, $input: UpdateServiceInput!) {\n    updateService(serviceKey: $serviceKey, input: $input) {\n      serviceKey\n      name\n      description\n      endpoint\n      capabilities\n      costPerCall\n      pricingModel\n    }\n  }\n": types.ConsoleUpdateServiceDocument,
    "\n  mutation ConsolePauseService($serviceKey: String!) {\n    pauseService(serviceKey: $serviceKey) {\n      serviceKey\n      status\n    }\n  }\n": types.ConsolePauseServiceDocument,
    "\n  mutation ConsoleResumeService($serviceKey: String!) {\n    resumeService(serviceKey: $serviceKey) {\n      serviceKey\n      status\n    }\n  }\n": types.ConsoleResumeServiceDocument,
    "\n  query ConsoleWallet($agentId: ID!, $after: String) {\n    wallet(agentId: $agentId) {\n      walletAddress\n      network\n      asset\n      balance\n      held\n      pending\n      available\n      keyCustody\n      createdAt\n    }\n    walletEntries(agentId: $agentId, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        id\n        kind\n        amount\n        reference\n        executionId\n        createdAt\n      }\n    }\n  }\n": types.ConsoleWalletDocument,
    "\n  mutation ConsoleFaucet {\n    sandboxFaucet {\n      credited\n      amount\n      balance\n    }\n  }\n": types.ConsoleFaucetDocument,
    "\n  mutation ConsoleAgentStatus($agentId: ID!, $input: UpdateAgentStatusInput!) {\n    updateAgentStatus(agentId: $agentId, input: $input) {\n      agentId\n      status\n      effectiveStatus\n      updated\n    }\n  }\n": types.ConsoleAgentStatusDocument,
    "\n  query ConsoleAdminAgents($status: AgentStatus, $name: String, $after: String) {\n    adminAgents(status: $status, name: $name, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        agentId\n        name\n        status\n        effectiveStatus\n        effectiveStatusImposedBy\n        parentId\n        reputation\n        createdAt\n      }\n    }\n  }\n": types.ConsoleAdminAgentsDocument,
    "\n  query ConsoleAdminDisputes($status: String, $after: String) {\n    adminDisputes(status: $status, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        disputeId\n        agentId\n        providerAgentId\n        serviceId\n        form\n        type\n        reason\n        description\n        status\n        resolved\n        resolution\n        refundCents\n        priorityResolution\n        createdAt\n      }\n    }\n  }\n": types.ConsoleAdminDisputesDocument,
    "\n  mutation ConsoleResolveDispute($id: ID!, $input: ResolveDisputeInput!) {\n    resolveDispute(id: $id, input: $input) {\n      disputeId\n      status\n      resolved\n      resolution\n      refundCents\n    }\n  }\n": types.ConsoleResolveDisputeDocument,
    "\n  query ConsoleAdminOutbox {\n    adminOutbox {\n      unrelayed\n      oldestUnrelayedSeconds\n      checkedAt\n      kinds {\n        kind\n        pending\n        due\n        sending\n        failed\n        oldestDueSeconds\n      }\n    }\n  }\n": types.ConsoleAdminOutboxDocument,
    "\n  query ConsoleAdminOverview($days: Int) {\n    adminStats {\n      agents {\n        total\n        active\n        suspended\n        banned\n        subAgents\n      }\n      services {\n        total\n        active\n      }\n      executions {\n        total\n        succeeded\n        failed\n        last30d\n      }\n      disputes {\n        total\n        open\n      }\n      subKeys {\n        total\n        live\n      }\n      capabilities\n    }\n    adminRevenue(days: $days) {\n      days\n      totals {\n        executions\n        paidExecutions\n        grossCents\n        refundsCents\n        netCents\n      }\n      fees {\n        asset\n        feeBps\n        fees\n        refunded\n        net\n      }\n      byDay {\n        day\n        grossCents\n        refundsCents\n        netCents\n        fees\n      }\n      byCapability {\n        capability\n        executions\n        grossCents\n        netCents\n      }\n    }\n  }\n": types.ConsoleAdminOverviewDocument,
    "\n  subscription ConsoleAgentEvents {\n    agentEvents {\n      id\n      type\n      createdAt\n      data\n    }\n  }\n": types.ConsoleAgentEventsDocument,
    "\n  subscription ConsoleRadio($after: Int) {\n    radioEvents(after: $after) {\n      sequence\n      eventId\n      channel\n      type\n      createdAt\n      data\n    }\n  }\n": types.ConsoleRadioDocument,
    "\n  subscription ConsoleUto($after: Int) {\n    utoEvents(after: $after) {\n      sequence\n      eventId\n      ticketId\n      domain\n      type\n      createdAt\n      data\n    }\n  }\n": types.ConsoleUtoDocument,
    "\n  query ConsoleAgentProfile($agentId: ID!, $days: Int) {\n    agentReputation(agentId: $agentId) {\n      agentId\n      name\n      reputation\n      tier\n      trustScore\n      calls\n      successes\n      successRate\n      disputes\n      disputesOpen\n      disputesLost\n      reputationEvents30d\n      reputationNet30d\n      history(days: $days) {\n        day\n        score\n        net\n        events\n      }\n    }\n  }\n": types.ConsoleAgentProfileDocument,
    "\n  query ConsoleCatalog {\n    capabilities {\n      total\n      hierarchy {\n        group\n        name\n        capabilities\n      }\n      capabilities {\n        slug\n        name\n        description\n        group\n        serviceCount\n        builtin\n      }\n    }\n  }\n": types.ConsoleCatalogDocument,
    "\n  query ConsoleCapability($slug: String!, $prefer: Prefer, $limit: Int) {\n    capability(slug: $slug) {\n      slug\n      name\n      description\n      category\n      parent\n      providers\n      bestReputation\n      minPriceCents\n      maxPriceCents\n      marketplace {\n        inputSchema\n      }\n    }\n    providers(capability: $slug, prefer: $prefer, limit: $limit) {\n      total\n      totalIsEstimate\n      resolutionTimeMs\n      matches {\n        serviceId\n        serviceKey\n        name\n        providerId\n        providerName\n        reputation\n        costCents\n        pricingModel\n        latencyP50Ms\n        successRate\n        score\n        firstParty\n        health\n        quality {\n          calls\n          successRate\n          uptime24h\n          lowSample\n        }\n        scoreBreakdown {\n          reputation\n          cost\n          reliability\n          latency\n          freshness\n        }\n      }\n    }\n  }\n": types.ConsoleCapabilityDocument,
    "\n  query ConsoleHealth($days: Int) {\n    health {\n      status\n      version\n      uptimeSeconds\n      checkedAt\n      components {\n        database {\n          status\n          kind\n          latencyMs\n        }\n        scheduler {\n          status\n          jobs\n          lastRunAt\n        }\n        sse {\n          status\n          openStreams\n          redis\n        }\n        memory {\n          status\n          rssBytes\n          heapUsedBytes\n          vectorSearch\n        }\n      }\n    }\n    uptime(days: $days) {\n      days\n      uptimePercent\n      minutesObserved\n      minutesUp\n      since\n    }\n  }\n": types.ConsoleHealthDocument,
    "\n  query ConsoleMarketHome {\n    showcase {\n      stats {\n        totalAgents\n        totalServices\n        totalCapabilities\n        totalTransactions\n        totalTransactions30d\n      }\n      topServices {\n        serviceId\n        serviceKey\n        name\n        providerName\n        reputation\n        successes\n        capabilities\n      }\n      recentExecutions {\n        executionId\n        capability\n        serviceName\n        status\n        latencyMs\n        createdAt\n      }\n    }\n  }\n": types.ConsoleMarketHomeDocument,
    "\n  query ConsoleService($serviceKey: String!) {\n    service(serviceKey: $serviceKey) {\n      serviceId\n      serviceKey\n      name\n      description\n      status\n      capabilities\n      languages\n      pricingModel\n      costPerCall\n      createdAt\n      provider {\n        agentId\n        name\n        reputation\n        tier\n      }\n      stats {\n        totalCalls\n        successes\n        failures\n        successRate\n        latencyP50Ms\n        latencyP95Ms\n        lastSuccessAt\n      }\n      health\n      lastFailureReason\n      quality {\n        windowDays\n        calls\n        successRate\n        latencyP50Ms\n        latencyP95Ms\n        uptime24h\n        uptime7d\n        uptime30d\n        probes\n        lowSample\n      }\n      qualityDays {\n        day\n        successes\n        failures\n        probesPassed\n        probesFailed\n        latencyP50Ms\n        latencyP95Ms\n        uptime\n      }\n    }\n  }\n": types.ConsoleServiceDocument,
    "\n  query ConsoleSkill($id: ID!) {\n    skill(id: $id) {\n      skillId\n      name\n      description\n      runtime\n      category\n      entrypoint\n      publishedVersion\n      publishedAt\n      installCount\n      forkCount\n      ownerAgentId\n      instructions\n    }\n  }\n": types.ConsoleSkillDocument,
    "\n  query ConsoleSkills($q: String, $runtime: SkillRuntime, $category: String, $sort: SkillMarketplaceSort, $after: String) {\n    skillMarketplace(q: $q, runtime: $runtime, category: $category, sort: $sort, first: 20, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        skillId\n        name\n        description\n        runtime\n        category\n        version\n        installCount\n        forkCount\n        publishedAt\n      }\n    }\n  }\n": types.ConsoleSkillsDocument,
    "\n  mutation ConsoleTryIt($input: ExecuteInput!) {\n    execute(input: $input) {\n      executionId\n      status\n      error\n      result\n      provider {\n        serviceKey\n        name\n      }\n      transaction {\n        costCents\n        latencyMs\n      }\n      attempts {\n        ordinal\n        serviceKey\n        outcome\n        category\n        reason\n        latencyMs\n      }\n      routing {\n        skipped {\n          serviceKey\n          reason\n          detail\n        }\n      }\n    }\n  }\n": types.ConsoleTryItDocument,
    "\n  query ConsoleWebmcp($q: String, $category: String, $after: String) {\n    webmcpStats {\n      sites\n      totalTools\n      byCategory {\n        category\n        tools\n      }\n    }\n    webmcpTools(q: $q, category: $category, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        name\n        description\n        category\n        siteName\n        siteOrigin\n        manifestUrl\n      }\n    }\n  }\n": types.ConsoleWebmcpDocument,
    "\n  query ConsoleDisputes($after: String) {\n    myDisputes(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        disputeId\n        form\n        type\n        reason\n        description\n        status\n        resolved\n        resolution\n        refundCents\n        serviceId\n        executionId\n        createdAt\n        resolvedAt\n      }\n    }\n  }\n": types.ConsoleDisputesDocument,
    "\n  mutation ConsoleOpenDispute($input: CreateDisputeInput!) {\n    createDispute(input: $input) {\n      disputeId\n      status\n    }\n  }\n": types.ConsoleOpenDisputeDocument,
    "\n  query ConsoleTicket($ticketKey: String!) {\n    ticket(ticketKey: $ticketKey) {\n      ticketKey\n      subject\n      description\n      type\n      priority\n      status\n      resolution\n      targetService\n      agentName\n      createdAt\n      comments {\n        commentId\n        author\n        content\n        createdAt\n      }\n      history {\n        from\n        to\n        at\n        actorKind\n        note\n      }\n    }\n  }\n": types.ConsoleTicketDocument,
    "\n  mutation ConsoleAddTicketComment($ticketKey: String!, $input: TicketCommentInput!) {\n    addTicketComment(ticketKey: $ticketKey, input: $input) {\n      commentId\n    }\n  }\n": types.ConsoleAddTicketCommentDocument,
    "\n  mutation ConsoleMoveTicket($ticketKey: String!, $input: TicketStatusInput!) {\n    updateTicketStatus(ticketKey: $ticketKey, input: $input) {\n      ticketKey\n      status\n    }\n  }\n": types.ConsoleMoveTicketDocument,
    "\n  query ConsoleTickets($status: String, $after: String) {\n    tickets(status: $status, first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        ticketKey\n        subject\n        type\n        priority\n        status\n        targetService\n        createdAt\n        updatedAt\n      }\n    }\n  }\n": types.ConsoleTicketsDocument,
    "\n  mutation ConsoleFileTicket($input: ExecuteInput!) {\n    execute(input: $input) {\n      executionId\n      status\n      error\n      result\n    }\n  }\n": types.ConsoleFileTicketDocument,
    "\n  query ConsoleDeliveries($webhookId: ID!, $status: String, $after: String) {\n    webhook(id: $webhookId) {\n      webhookId\n      url\n      events\n      active\n    }\n    webhookDeliveries(webhookId: $webhookId, status: $status, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        deliveryId\n        eventId\n        eventType\n        status\n        attempts\n        lastStatus\n        lastError\n        nextAttemptAt\n        deliveredAt\n        createdAt\n      }\n    }\n  }\n": types.ConsoleDeliveriesDocument,
    "\n  mutation ConsoleRedeliver($webhookId: ID!, $deliveryId: ID!) {\n    redeliverWebhookDelivery(webhookId: $webhookId, deliveryId: $deliveryId) {\n      deliveryId\n      status\n    }\n  }\n": types.ConsoleRedeliverDocument,
    "\n  mutation ConsoleUpdateWebhook($id: ID!, $input: WebhookInput!) {\n    updateWebhook(id: $id, input: $input) {\n      webhookId\n      url\n      events\n      active\n    }\n  }\n": types.ConsoleUpdateWebhookDocument,
    "\n  mutation ConsoleDeleteWebhook($id: ID!) {\n    deleteWebhook(id: $id) {\n      deleted\n    }\n  }\n": types.ConsoleDeleteWebhookDocument,
    "\n  query ConsoleWebhooks($after: String) {\n    webhooks(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        webhookId\n        url\n        events\n        active\n        disabledReason\n        createdAt\n      }\n    }\n  }\n": types.ConsoleWebhooksDocument,
    "\n  mutation ConsoleCreateWebhook($input: WebhookInput!) {\n    createWebhook(input: $input) {\n      webhookId\n      secret\n    }\n  }\n": types.ConsoleCreateWebhookDocument,
    "\n  query ConsoleMemoryEntries($storeId: ID!, $prefix: String, $after: String) {\n    memoryStore(id: $storeId) {\n      storeId\n      name\n      storeType\n      accessLevel\n    }\n    memoryEntries(storeId: $storeId, prefix: $prefix, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        key\n        version\n        value\n        updatedAt\n        expiresAt\n      }\n    }\n  }\n": types.ConsoleMemoryEntriesDocument,
    "\n  mutation ConsoleWriteMemoryEntry($storeId: ID!, $input: WriteMemoryEntriesInput!) {\n    writeMemoryEntries(storeId: $storeId, input: $input) {\n      written\n    }\n  }\n": types.ConsoleWriteMemoryEntryDocument,
    "\n  mutation ConsoleDeleteMemoryEntry($storeId: ID!, $key: String!) {\n    deleteMemoryEntry(storeId: $storeId, key: $key) {\n      deleted\n    }\n  }\n": types.ConsoleDeleteMemoryEntryDocument,
    "\n  query ConsoleMemoryStores($after: String) {\n    memoryStores(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        storeId\n        name\n        description\n        storeType\n        accessLevel\n        dimensions\n        defaultTtlSeconds\n        createdAt\n      }\n    }\n  }\n": types.ConsoleMemoryStoresDocument,
    "\n  mutation ConsoleCreateMemoryStore($input: CreateMemoryStoreInput!) {\n    createMemoryStore(input: $input) {\n      storeId\n    }\n  }\n": types.ConsoleCreateMemoryStoreDocument,
    "\n  query ConsoleSwarm($id: String!) {\n    swarmSession(id: $id) {\n      sessionId\n      goal\n      strategy\n      status\n      stepCount\n      completedSteps\n      failedSteps\n      createdAt\n      finishedAt\n      steps {\n        stepId\n        ordinal\n        capability\n        status\n        provider\n        attempts\n        costCents\n        error\n        executionId\n        finishedAt\n      }\n    }\n  }\n": types.ConsoleSwarmDocument,
    "\n  subscription ConsoleSwarmEvents($sessionId: String!, $after: Int) {\n    swarmEvents(sessionId: $sessionId, after: $after) {\n      sequence\n      event\n      status\n    }\n  }\n": types.ConsoleSwarmEventsDocument,
    "\n  mutation ConsoleCancelSwarm($id: String!) {\n    cancelSwarmSession(id: $id) {\n      sessionId\n      status\n    }\n  }\n": types.ConsoleCancelSwarmDocument,
    "\n  query ConsoleSwarms($after: String) {\n    swarmSessions(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        sessionId\n        goal\n        strategy\n        status\n        stepCount\n        completedSteps\n        failedSteps\n        createdAt\n      }\n    }\n  }\n": types.ConsoleSwarmsDocument,
    "\n  mutation ConsoleCreateSwarm($input: CreateSwarmSessionInput!) {\n    createSwarmSession(input: $input) {\n      sessionId\n    }\n  }\n": types.ConsoleCreateSwarmDocument,
    "\n  query ConsoleTask($id: String!) {\n    task(id: $id) {\n      taskId\n      intent\n      status\n      successCriteria\n      budget\n      budgetRemaining\n      spent\n      deadline\n      result\n      createdAt\n      completedAt\n      delegations {\n        delegationId\n        subAgentId\n        status\n        createdAt\n        endedAt\n      }\n      executions {\n        taskExecutionId\n        executionId\n        capability\n        status\n        criteriaMet\n        executorDelta\n        createdAt\n      }\n    }\n  }\n": types.ConsoleTaskDocument,
    "\n  mutation ConsoleCancelTask($id: String!) {\n    cancelTask(id: $id) {\n      taskId\n      status\n    }\n  }\n": types.ConsoleCancelTaskDocument,
    "\n  query ConsoleTasks($status: String, $after: String) {\n    tasks(status: $status, first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        taskId\n        intent\n        status\n        budget\n        spent\n        deadline\n        delegateId\n        createdAt\n        executions {\n          taskExecutionId\n        }\n      }\n    }\n  }\n": types.ConsoleTasksDocument,
    "\n  mutation ConsoleCreateTask($input: CreateTaskInput!) {\n    createTask(input: $input) {\n      taskId\n    }\n  }\n": types.ConsoleCreateTaskDocument,
    "\n  query ConsoleUtoTicket($id: String!) {\n    utoTicket(id: $id) {\n      ticketId\n      intent\n      domain\n      state\n      requiredCapabilities\n      maxBudgetUsd\n      deadline\n      context\n      matches\n      stateHistory {\n        from\n        to\n        at\n        by\n        triggeredBy\n        note\n      }\n    }\n  }\n": types.ConsoleUtoTicketDocument,
    "\n  mutation ConsoleAdvanceUtoTicket($id: String!, $input: AdvanceUtoTicketInput!) {\n    advanceUtoTicket(id: $id, input: $input) {\n      ticketId\n      state\n    }\n  }\n": types.ConsoleAdvanceUtoTicketDocument,
    "\n  query ConsoleUtoTickets($state: String, $after: String) {\n    utoTickets(state: $state, first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        ticketId\n        intent\n        domain\n        state\n        requiredCapabilities\n        maxBudgetUsd\n        deadline\n        updatedAt\n      }\n    }\n  }\n": types.ConsoleUtoTicketsDocument,
    "\n  mutation ConsoleCreateUtoTicket($input: CreateUtoTicketInput!) {\n    createUtoTicket(input: $input) {\n      ticketId\n    }\n  }\n": types.ConsoleCreateUtoTicketDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ConsolePageInfo on PageInfo {\n    hasNextPage\n    endCursor\n  }\n"): typeof import('./graphql').ConsolePageInfoFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleSignedIn {\n    me {\n      agentId\n      name\n    }\n  }\n"): typeof import('./graphql').ConsoleSignedInDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleAgentEventTypes {\n    agentEvents {\n      id\n      type\n    }\n  }\n"): typeof import('./graphql').ConsoleAgentEventTypesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleExecute($input: ExecuteInput!) {\n    execute(input: $input) {\n      executionId\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleExecuteDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleExecution($id: ID!) {\n    node(id: $id) {\n      ... on Execution {\n        executionId\n        capability\n        status\n        mode\n        costCents\n        latencyMs\n        error\n        result\n        createdAt\n        serviceId\n        attempts {\n          ordinal\n          serviceKey\n          outcome\n          reason\n          statusCode\n          score\n          priceCents\n          latencyMs\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleExecutionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleRankingNow($capability: String!) {\n    providers(capability: $capability, limit: 100) {\n      matches {\n        serviceKey\n        name\n        score\n        scoreBreakdown {\n          reputation\n          cost\n          reliability\n          latency\n          freshness\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleRankingNowDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleExecutionReceipt($executionId: ID!) {\n    executionReceipt(executionId: $executionId) {\n      signedReceipt\n      claims\n    }\n  }\n"): typeof import('./graphql').ConsoleExecutionReceiptDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleExecutions($after: String) {\n    myExecutions(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        executionId\n        capability\n        status\n        mode\n        costCents\n        latencyMs\n        createdAt\n        attempts {\n          ordinal\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleExecutionsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleKeys($after: String) {\n    myKeys(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        subKeyId\n        hint\n        serviceKey\n        serviceName\n        status\n        permissions\n        expiresAt\n        gracePeriodEnds\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleKeysDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleProvisionKey($serviceKey: String!) {\n    provisionSubKey(serviceKey: $serviceKey) {\n      subKeyId\n      subKey\n    }\n  }\n"): typeof import('./graphql').ConsoleProvisionKeyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleRotateKey($id: ID!) {\n    rotateSubKey(id: $id) {\n      subKeyId\n      newSubKey\n      gracePeriodEnds\n    }\n  }\n"): typeof import('./graphql').ConsoleRotateKeyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleRevokeKey($id: ID!) {\n    revokeSubKey(id: $id) {\n      subKeyId\n      revoked\n    }\n  }\n"): typeof import('./graphql').ConsoleRevokeKeyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleMandates {\n    granted: mandates(role: \"granted\", first: 50) {\n      totalCount\n      nodes {\n        ...ConsoleMandate\n      }\n    }\n    held: mandates(role: \"held\", first: 5) {\n      nodes {\n        ...ConsoleMandate\n      }\n    }\n    mySubAgents(first: 100) {\n      nodes {\n        agentId\n        name\n      }\n    }\n  }\n  fragment ConsoleMandate on Mandate {\n    mandateId\n    grantorId\n    agentId\n    perCallCents\n    dailyCents\n    monthlyCents\n    capabilities\n    expiresAt\n    revokedAt\n    inForce\n    today {\n      ...ConsoleMandateUse\n    }\n    thisMonth {\n      ...ConsoleMandateUse\n    }\n  }\n  fragment ConsoleMandateUse on MandatePeriodUse {\n    startsOn\n    capCents\n    spentCents\n    heldCents\n    calls\n    remainingCents\n    alerted\n  }\n"): typeof import('./graphql').ConsoleMandatesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleGrantMandate($input: GrantMandateInput!) {\n    grantMandate(input: $input) {\n      mandateId\n    }\n  }\n"): typeof import('./graphql').ConsoleGrantMandateDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleRevokeMandate($id: ID!) {\n    revokeMandate(id: $id) {\n      mandateId\n      inForce\n    }\n  }\n"): typeof import('./graphql').ConsoleRevokeMandateDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleMe {\n    me {\n      agentId\n      agentKey\n      name\n      description\n      ownerEmail\n      reputation\n      tier\n      status\n      autonomyLevel\n      authorityScope\n      parentId\n      createdAt\n    }\n    myUsage {\n      totalRequests\n      totalExecutions\n      days\n    }\n  }\n"): typeof import('./graphql').ConsoleMeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleSubAgents($after: String) {\n    mySubAgents(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        agentId\n        name\n        parentId\n        autonomyLevel\n        authorityScope\n        status\n        effectiveStatus\n        effectiveStatusImposedBy\n        reputation\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleSubAgentsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateSubAgent($parentId: ID!, $input: CreateSubAgentInput!) {\n    createSubAgent(parentId: $parentId, input: $input) {\n      agentId\n      name\n      masterKey\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateSubAgentDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleRegister($input: RegisterAgentInput!) {\n    registerAgent(input: $input) {\n      agentId\n      name\n      masterKey\n    }\n  }\n"): typeof import('./graphql').ConsoleRegisterDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleMyServices($after: String) {\n    myServices(first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        serviceId\n        serviceKey\n        name\n        description\n        endpoint\n        status\n        capabilities\n        pricingModel\n        costPerCall\n        resumeAt\n        stats {\n          totalCalls\n          successRate\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleMyServicesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleRegisterService($input: RegisterServiceInput!) {\n    registerService(input: $input) {\n      serviceKey\n      name\n      signingSecret\n    }\n  }\n"): typeof import('./graphql').ConsoleRegisterServiceDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleUpdateService($serviceKey: String!, $input: UpdateServiceInput!) {\n    updateService(serviceKey: $serviceKey, input: $input) {\n      serviceKey\n      name\n      description\n      endpoint\n      capabilities\n      costPerCall\n      pricingModel\n    }\n  }\n"): typeof import('./graphql').ConsoleUpdateServiceDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsolePauseService($serviceKey: String!) {\n    pauseService(serviceKey: $serviceKey) {\n      serviceKey\n      status\n    }\n  }\n"): typeof import('./graphql').ConsolePauseServiceDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleResumeService($serviceKey: String!) {\n    resumeService(serviceKey: $serviceKey) {\n      serviceKey\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleResumeServiceDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleWallet($agentId: ID!, $after: String) {\n    wallet(agentId: $agentId) {\n      walletAddress\n      network\n      asset\n      balance\n      held\n      pending\n      available\n      keyCustody\n      createdAt\n    }\n    walletEntries(agentId: $agentId, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        id\n        kind\n        amount\n        reference\n        executionId\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleWalletDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleFaucet {\n    sandboxFaucet {\n      credited\n      amount\n      balance\n    }\n  }\n"): typeof import('./graphql').ConsoleFaucetDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleAgentStatus($agentId: ID!, $input: UpdateAgentStatusInput!) {\n    updateAgentStatus(agentId: $agentId, input: $input) {\n      agentId\n      status\n      effectiveStatus\n      updated\n    }\n  }\n"): typeof import('./graphql').ConsoleAgentStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAdminAgents($status: AgentStatus, $name: String, $after: String) {\n    adminAgents(status: $status, name: $name, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        agentId\n        name\n        status\n        effectiveStatus\n        effectiveStatusImposedBy\n        parentId\n        reputation\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleAdminAgentsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAdminDisputes($status: String, $after: String) {\n    adminDisputes(status: $status, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        disputeId\n        agentId\n        providerAgentId\n        serviceId\n        form\n        type\n        reason\n        description\n        status\n        resolved\n        resolution\n        refundCents\n        priorityResolution\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleAdminDisputesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleResolveDispute($id: ID!, $input: ResolveDisputeInput!) {\n    resolveDispute(id: $id, input: $input) {\n      disputeId\n      status\n      resolved\n      resolution\n      refundCents\n    }\n  }\n"): typeof import('./graphql').ConsoleResolveDisputeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAdminOutbox {\n    adminOutbox {\n      unrelayed\n      oldestUnrelayedSeconds\n      checkedAt\n      kinds {\n        kind\n        pending\n        due\n        sending\n        failed\n        oldestDueSeconds\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleAdminOutboxDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAdminOverview($days: Int) {\n    adminStats {\n      agents {\n        total\n        active\n        suspended\n        banned\n        subAgents\n      }\n      services {\n        total\n        active\n      }\n      executions {\n        total\n        succeeded\n        failed\n        last30d\n      }\n      disputes {\n        total\n        open\n      }\n      subKeys {\n        total\n        live\n      }\n      capabilities\n    }\n    adminRevenue(days: $days) {\n      days\n      totals {\n        executions\n        paidExecutions\n        grossCents\n        refundsCents\n        netCents\n      }\n      fees {\n        asset\n        feeBps\n        fees\n        refunded\n        net\n      }\n      byDay {\n        day\n        grossCents\n        refundsCents\n        netCents\n        fees\n      }\n      byCapability {\n        capability\n        executions\n        grossCents\n        netCents\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleAdminOverviewDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleAgentEvents {\n    agentEvents {\n      id\n      type\n      createdAt\n      data\n    }\n  }\n"): typeof import('./graphql').ConsoleAgentEventsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleRadio($after: Int) {\n    radioEvents(after: $after) {\n      sequence\n      eventId\n      channel\n      type\n      createdAt\n      data\n    }\n  }\n"): typeof import('./graphql').ConsoleRadioDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleUto($after: Int) {\n    utoEvents(after: $after) {\n      sequence\n      eventId\n      ticketId\n      domain\n      type\n      createdAt\n      data\n    }\n  }\n"): typeof import('./graphql').ConsoleUtoDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleAgentProfile($agentId: ID!, $days: Int) {\n    agentReputation(agentId: $agentId) {\n      agentId\n      name\n      reputation\n      tier\n      trustScore\n      calls\n      successes\n      successRate\n      disputes\n      disputesOpen\n      disputesLost\n      reputationEvents30d\n      reputationNet30d\n      history(days: $days) {\n        day\n        score\n        net\n        events\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleAgentProfileDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleCatalog {\n    capabilities {\n      total\n      hierarchy {\n        group\n        name\n        capabilities\n      }\n      capabilities {\n        slug\n        name\n        description\n        group\n        serviceCount\n        builtin\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleCatalogDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleCapability($slug: String!, $prefer: Prefer, $limit: Int) {\n    capability(slug: $slug) {\n      slug\n      name\n      description\n      category\n      parent\n      providers\n      bestReputation\n      minPriceCents\n      maxPriceCents\n      marketplace {\n        inputSchema\n      }\n    }\n    providers(capability: $slug, prefer: $prefer, limit: $limit) {\n      total\n      totalIsEstimate\n      resolutionTimeMs\n      matches {\n        serviceId\n        serviceKey\n        name\n        providerId\n        providerName\n        reputation\n        costCents\n        pricingModel\n        latencyP50Ms\n        successRate\n        score\n        firstParty\n        health\n        quality {\n          calls\n          successRate\n          uptime24h\n          lowSample\n        }\n        scoreBreakdown {\n          reputation\n          cost\n          reliability\n          latency\n          freshness\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleCapabilityDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleHealth($days: Int) {\n    health {\n      status\n      version\n      uptimeSeconds\n      checkedAt\n      components {\n        database {\n          status\n          kind\n          latencyMs\n        }\n        scheduler {\n          status\n          jobs\n          lastRunAt\n        }\n        sse {\n          status\n          openStreams\n          redis\n        }\n        memory {\n          status\n          rssBytes\n          heapUsedBytes\n          vectorSearch\n        }\n      }\n    }\n    uptime(days: $days) {\n      days\n      uptimePercent\n      minutesObserved\n      minutesUp\n      since\n    }\n  }\n"): typeof import('./graphql').ConsoleHealthDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleMarketHome {\n    showcase {\n      stats {\n        totalAgents\n        totalServices\n        totalCapabilities\n        totalTransactions\n        totalTransactions30d\n      }\n      topServices {\n        serviceId\n        serviceKey\n        name\n        providerName\n        reputation\n        successes\n        capabilities\n      }\n      recentExecutions {\n        executionId\n        capability\n        serviceName\n        status\n        latencyMs\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleMarketHomeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleService($serviceKey: String!) {\n    service(serviceKey: $serviceKey) {\n      serviceId\n      serviceKey\n      name\n      description\n      status\n      capabilities\n      languages\n      pricingModel\n      costPerCall\n      createdAt\n      provider {\n        agentId\n        name\n        reputation\n        tier\n      }\n      stats {\n        totalCalls\n        successes\n        failures\n        successRate\n        latencyP50Ms\n        latencyP95Ms\n        lastSuccessAt\n      }\n      health\n      lastFailureReason\n      quality {\n        windowDays\n        calls\n        successRate\n        latencyP50Ms\n        latencyP95Ms\n        uptime24h\n        uptime7d\n        uptime30d\n        probes\n        lowSample\n      }\n      qualityDays {\n        day\n        successes\n        failures\n        probesPassed\n        probesFailed\n        latencyP50Ms\n        latencyP95Ms\n        uptime\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleServiceDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleSkill($id: ID!) {\n    skill(id: $id) {\n      skillId\n      name\n      description\n      runtime\n      category\n      entrypoint\n      publishedVersion\n      publishedAt\n      installCount\n      forkCount\n      ownerAgentId\n      instructions\n    }\n  }\n"): typeof import('./graphql').ConsoleSkillDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleSkills($q: String, $runtime: SkillRuntime, $category: String, $sort: SkillMarketplaceSort, $after: String) {\n    skillMarketplace(q: $q, runtime: $runtime, category: $category, sort: $sort, first: 20, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        skillId\n        name\n        description\n        runtime\n        category\n        version\n        installCount\n        forkCount\n        publishedAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleSkillsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleTryIt($input: ExecuteInput!) {\n    execute(input: $input) {\n      executionId\n      status\n      error\n      result\n      provider {\n        serviceKey\n        name\n      }\n      transaction {\n        costCents\n        latencyMs\n      }\n      attempts {\n        ordinal\n        serviceKey\n        outcome\n        category\n        reason\n        latencyMs\n      }\n      routing {\n        skipped {\n          serviceKey\n          reason\n          detail\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleTryItDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleWebmcp($q: String, $category: String, $after: String) {\n    webmcpStats {\n      sites\n      totalTools\n      byCategory {\n        category\n        tools\n      }\n    }\n    webmcpTools(q: $q, category: $category, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        name\n        description\n        category\n        siteName\n        siteOrigin\n        manifestUrl\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleWebmcpDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleDisputes($after: String) {\n    myDisputes(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        disputeId\n        form\n        type\n        reason\n        description\n        status\n        resolved\n        resolution\n        refundCents\n        serviceId\n        executionId\n        createdAt\n        resolvedAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleDisputesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleOpenDispute($input: CreateDisputeInput!) {\n    createDispute(input: $input) {\n      disputeId\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleOpenDisputeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleTicket($ticketKey: String!) {\n    ticket(ticketKey: $ticketKey) {\n      ticketKey\n      subject\n      description\n      type\n      priority\n      status\n      resolution\n      targetService\n      agentName\n      createdAt\n      comments {\n        commentId\n        author\n        content\n        createdAt\n      }\n      history {\n        from\n        to\n        at\n        actorKind\n        note\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleTicketDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleAddTicketComment($ticketKey: String!, $input: TicketCommentInput!) {\n    addTicketComment(ticketKey: $ticketKey, input: $input) {\n      commentId\n    }\n  }\n"): typeof import('./graphql').ConsoleAddTicketCommentDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleMoveTicket($ticketKey: String!, $input: TicketStatusInput!) {\n    updateTicketStatus(ticketKey: $ticketKey, input: $input) {\n      ticketKey\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleMoveTicketDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleTickets($status: String, $after: String) {\n    tickets(status: $status, first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        ticketKey\n        subject\n        type\n        priority\n        status\n        targetService\n        createdAt\n        updatedAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleTicketsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleFileTicket($input: ExecuteInput!) {\n    execute(input: $input) {\n      executionId\n      status\n      error\n      result\n    }\n  }\n"): typeof import('./graphql').ConsoleFileTicketDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleDeliveries($webhookId: ID!, $status: String, $after: String) {\n    webhook(id: $webhookId) {\n      webhookId\n      url\n      events\n      active\n    }\n    webhookDeliveries(webhookId: $webhookId, status: $status, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        deliveryId\n        eventId\n        eventType\n        status\n        attempts\n        lastStatus\n        lastError\n        nextAttemptAt\n        deliveredAt\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleDeliveriesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleRedeliver($webhookId: ID!, $deliveryId: ID!) {\n    redeliverWebhookDelivery(webhookId: $webhookId, deliveryId: $deliveryId) {\n      deliveryId\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleRedeliverDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleUpdateWebhook($id: ID!, $input: WebhookInput!) {\n    updateWebhook(id: $id, input: $input) {\n      webhookId\n      url\n      events\n      active\n    }\n  }\n"): typeof import('./graphql').ConsoleUpdateWebhookDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleDeleteWebhook($id: ID!) {\n    deleteWebhook(id: $id) {\n      deleted\n    }\n  }\n"): typeof import('./graphql').ConsoleDeleteWebhookDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleWebhooks($after: String) {\n    webhooks(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        webhookId\n        url\n        events\n        active\n        disabledReason\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleWebhooksDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateWebhook($input: WebhookInput!) {\n    createWebhook(input: $input) {\n      webhookId\n      secret\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateWebhookDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleMemoryEntries($storeId: ID!, $prefix: String, $after: String) {\n    memoryStore(id: $storeId) {\n      storeId\n      name\n      storeType\n      accessLevel\n    }\n    memoryEntries(storeId: $storeId, prefix: $prefix, first: 25, after: $after) {\n      totalCount\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        key\n        version\n        value\n        updatedAt\n        expiresAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleMemoryEntriesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleWriteMemoryEntry($storeId: ID!, $input: WriteMemoryEntriesInput!) {\n    writeMemoryEntries(storeId: $storeId, input: $input) {\n      written\n    }\n  }\n"): typeof import('./graphql').ConsoleWriteMemoryEntryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleDeleteMemoryEntry($storeId: ID!, $key: String!) {\n    deleteMemoryEntry(storeId: $storeId, key: $key) {\n      deleted\n    }\n  }\n"): typeof import('./graphql').ConsoleDeleteMemoryEntryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleMemoryStores($after: String) {\n    memoryStores(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        storeId\n        name\n        description\n        storeType\n        accessLevel\n        dimensions\n        defaultTtlSeconds\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleMemoryStoresDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateMemoryStore($input: CreateMemoryStoreInput!) {\n    createMemoryStore(input: $input) {\n      storeId\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateMemoryStoreDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleSwarm($id: String!) {\n    swarmSession(id: $id) {\n      sessionId\n      goal\n      strategy\n      status\n      stepCount\n      completedSteps\n      failedSteps\n      createdAt\n      finishedAt\n      steps {\n        stepId\n        ordinal\n        capability\n        status\n        provider\n        attempts\n        costCents\n        error\n        executionId\n        finishedAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleSwarmDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ConsoleSwarmEvents($sessionId: String!, $after: Int) {\n    swarmEvents(sessionId: $sessionId, after: $after) {\n      sequence\n      event\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleSwarmEventsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCancelSwarm($id: String!) {\n    cancelSwarmSession(id: $id) {\n      sessionId\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleCancelSwarmDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleSwarms($after: String) {\n    swarmSessions(first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        sessionId\n        goal\n        strategy\n        status\n        stepCount\n        completedSteps\n        failedSteps\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleSwarmsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateSwarm($input: CreateSwarmSessionInput!) {\n    createSwarmSession(input: $input) {\n      sessionId\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateSwarmDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleTask($id: String!) {\n    task(id: $id) {\n      taskId\n      intent\n      status\n      successCriteria\n      budget\n      budgetRemaining\n      spent\n      deadline\n      result\n      createdAt\n      completedAt\n      delegations {\n        delegationId\n        subAgentId\n        status\n        createdAt\n        endedAt\n      }\n      executions {\n        taskExecutionId\n        executionId\n        capability\n        status\n        criteriaMet\n        executorDelta\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleTaskDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCancelTask($id: String!) {\n    cancelTask(id: $id) {\n      taskId\n      status\n    }\n  }\n"): typeof import('./graphql').ConsoleCancelTaskDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleTasks($status: String, $after: String) {\n    tasks(status: $status, first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        taskId\n        intent\n        status\n        budget\n        spent\n        deadline\n        delegateId\n        createdAt\n        executions {\n          taskExecutionId\n        }\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleTasksDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateTask($input: CreateTaskInput!) {\n    createTask(input: $input) {\n      taskId\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateTaskDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleUtoTicket($id: String!) {\n    utoTicket(id: $id) {\n      ticketId\n      intent\n      domain\n      state\n      requiredCapabilities\n      maxBudgetUsd\n      deadline\n      context\n      matches\n      stateHistory {\n        from\n        to\n        at\n        by\n        triggeredBy\n        note\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleUtoTicketDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleAdvanceUtoTicket($id: String!, $input: AdvanceUtoTicketInput!) {\n    advanceUtoTicket(id: $id, input: $input) {\n      ticketId\n      state\n    }\n  }\n"): typeof import('./graphql').ConsoleAdvanceUtoTicketDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ConsoleUtoTickets($state: String, $after: String) {\n    utoTickets(state: $state, first: 25, after: $after) {\n      pageInfo {\n        ...ConsolePageInfo\n      }\n      nodes {\n        ticketId\n        intent\n        domain\n        state\n        requiredCapabilities\n        maxBudgetUsd\n        deadline\n        updatedAt\n      }\n    }\n  }\n"): typeof import('./graphql').ConsoleUtoTicketsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ConsoleCreateUtoTicket($input: CreateUtoTicketInput!) {\n    createUtoTicket(input: $input) {\n      ticketId\n    }\n  }\n"): typeof import('./graphql').ConsoleCreateUtoTicketDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
