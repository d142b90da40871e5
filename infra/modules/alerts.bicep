// certsched's alerts: log search alert rules over the app's Application Insights and, when
// an e-mail address or a webhook is given, the action group that delivers them. Each rule's
// query is a file in infra/alerts/, loaded here and nowhere else copied: docs/operations.md
// explains them and test/infra/alerts.test.ts checks them against the log lines the code writes.

@description('Name of the Application Insights component the rules query.')
param appInsightsName string

@description('Azure region of the alert rules (that of Application Insights).')
param location string

@description('Tags applied to the rules and the action group.')
param tags object = {}

@description('Suffix of every alert resource name, e.g. certsched-<token>.')
param nameSuffix string

@description('E-mail address the alerts are sent to. Empty: no e-mail receiver.')
param alertEmail string = ''

@description('https URL the alerts are posted to (Azure Monitor common alert schema). Secure: such URLs often carry their signature. Empty: no webhook receiver.')
@secure()
param alertWebhookUrl string = ''

var hasEmail = !empty(alertEmail)
var hasWebhook = !empty(alertWebhookUrl)
var hasActionGroup = hasEmail || hasWebhook

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

// Created only with a receiver: an action group without one would notify nobody and look as if
// it did.
resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = if (hasActionGroup) {
  name: 'ag-${nameSuffix}'
  // Action groups are global resources.
  location: 'global'
  tags: tags
  properties: {
    // At most 12 characters; shown as the sender of e-mails.
    groupShortName: 'certsched'
    enabled: true
    emailReceivers: hasEmail
      ? [
          {
            name: 'email'
            emailAddress: alertEmail
            useCommonAlertSchema: true
          }
        ]
      : []
    webhookReceivers: hasWebhook
      ? [
          {
            name: 'webhook'
            serviceUri: alertWebhookUrl
            useCommonAlertSchema: true
          }
        ]
      : []
  }
}

var actionGroups = hasActionGroup ? [actionGroup.id] : []

// Event alerts (a failed sweep, a stuck certificate) notify on every hour that saw one and do
// not resolve; state alerts (silence, a certificate close to expiry) notify once and resolve when
// the state ends.

resource sweepFailed 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-sweep-failed-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'certsched: a sweep failed'
    description: 'A renewal sweep failed: a renewal failed, a certificate is stuck or was not attempted, the list or the ledger failed, or the timer run itself failed. docs/operations.md "Alerts".'
    severity: 1
    enabled: true
    scopes: [
      appInsights.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: loadTextContent('../alerts/sweep-failed.kql')
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: false
    actions: {
      actionGroups: actionGroups
    }
  }
}

resource sweepSilent 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-sweep-silent-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'certsched: no successful sweep for 26 hours'
    description: 'The dead-man alert: no sweep summary with failed=false in 26 hours. The timer stopped, the app is broken, or every sweep fails. docs/operations.md "Alerts".'
    severity: 1
    enabled: true
    scopes: [
      appInsights.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    // The query looks back 26 hours itself (ago(26h)); the time range must include that.
    overrideQueryTimeRange: 'P2D'
    criteria: {
      allOf: [
        {
          query: loadTextContent('../alerts/sweep-silent.kql')
          timeAggregation: 'Total'
          metricMeasureColumn: 'successes'
          operator: 'LessThan'
          threshold: 1
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: actionGroups
    }
  }
}

resource certificateStuck 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-certificate-stuck-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'certsched: a certificate is stuck'
    description: 'The service accepted a renewal 24 hours ago and the certificate is still due: renewing again will not help; look at the service and the target. docs/operations.md "Alerts".'
    severity: 2
    enabled: true
    scopes: [
      appInsights.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: loadTextContent('../alerts/certificate-stuck.kql')
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          dimensions: [
            {
              name: 'certificate'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: false
    actions: {
      actionGroups: actionGroups
    }
  }
}

resource certificateExpiring 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-certificate-expiring-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'certsched: a certificate expires within 7 days'
    description: 'The latest sweep lists a certificate with less than 7 days left: it has failed to renew for about two weeks, or was added late. docs/operations.md "Alerts".'
    severity: 1
    enabled: true
    scopes: [
      appInsights.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    // The query looks back 26 hours itself (ago(26h)) for the latest sweep.
    overrideQueryTimeRange: 'P2D'
    criteria: {
      allOf: [
        {
          query: loadTextContent('../alerts/certificate-expiring.kql')
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          dimensions: [
            {
              name: 'certificate'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: actionGroups
    }
  }
}

resource verificationFailed 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-verification-failed-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'certsched: a verification run failed'
    description: 'A certificate is not served as it should be: not-landed (renewed but the old certificate is still served), expired, mismatch, untrusted, incomplete-chain, weak, too-long, critically expiring as served, or unreachable past its grace. The summary line names each one. docs/operations.md "Alerts".'
    severity: 1
    enabled: true
    scopes: [
      appInsights.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: loadTextContent('../alerts/verification-failed.kql')
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: false
    actions: {
      actionGroups: actionGroups
    }
  }
}

resource runPoisoned 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-run-poisoned-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'certsched: a queued run was poisoned'
    description: 'A run started by POST /api/renewals failed every delivery of its queue message and landed in certsched-runs-poison: it is marked failed and nothing was swept to the end for it. docs/runs.md "Poison queue".'
    severity: 1
    enabled: true
    scopes: [
      appInsights.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: loadTextContent('../alerts/run-poisoned.kql')
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: false
    actions: {
      actionGroups: actionGroups
    }
  }
}

resource accountAlert 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-account-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'certsched: an account could not be swept'
    description: 'An account\'s part of a run failed for a reason of its account\'s: credentials refused (dead after CERTSCHED_DEAD_ACCOUNT_DAYS days), or its request budget spent. The line names the account; the other accounts were swept. docs/accounts.md, docs/runs.md.'
    severity: 1
    enabled: true
    scopes: [
      appInsights.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: loadTextContent('../alerts/account-alert.kql')
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: false
    actions: {
      actionGroups: actionGroups
    }
  }
}

resource preflightWillFail 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-preflight-will-fail-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'certsched: a certificate will fail to renew (preflight, under 25 days left)'
    description: 'The last preflight of a certificate with fewer than 25 days left found what will make its renewal fail (CAA forbids the CA, DNS zone missing or not delegated, domain not bound, app missing, HTTP challenge unreachable, credentials refused or a role missing). The line names the certificate, the account and the reasons; GET /api/preflight says what to do. docs/operations.md "Alerts".'
    severity: 2
    enabled: true
    scopes: [
      appInsights.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: loadTextContent('../alerts/preflight-will-fail.kql')
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          dimensions: [
            {
              name: 'certificate'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: false
    actions: {
      actionGroups: actionGroups
    }
  }
}

resource unexpectedIssuance 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-unexpected-issuance-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'certsched: a certificate was issued that certsched did not ask for (Certificate Transparency)'
    description: 'The Certificate Transparency watch found an issuance for a watched name that matches no certificate certsched has read (by public key or TBS hash) and no renewal or creation it sent: a mis-issuance, another ACME client, or a DNS account in the wrong hands. The line names the issuance, the watched name, the account, the names, the issuer and the validity; certsched ct and GET /api/issuances explain it. docs/operations.md "Alerts".'
    severity: 1
    enabled: true
    scopes: [
      appInsights.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: loadTextContent('../alerts/unexpected-issuance.kql')
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          dimensions: [
            {
              name: 'issuance'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: false
    actions: {
      actionGroups: actionGroups
    }
  }
}

// Key Vault events: a vault certificate near expiry or expired that nothing will renew in time.
resource vaultExpiry 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-vault-expiry-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'certsched: a Key Vault certificate is expiring and nothing will renew it in time'
    description: 'Key Vault sent CertificateNearExpiry or CertificateExpired for a certificate in a watched vault, and certsched either does not renew it (unmanaged certificate expiring: the line names its vault, subscription and resource group) or its renewal is at risk (failed, stuck, not landed, preflight says it will fail, or expired). One line per version and event type, naming the vault, certificate, version, account and why. docs/operations.md "Alerts".'
    severity: 1
    enabled: true
    scopes: [
      appInsights.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: loadTextContent('../alerts/vault-expiry.kql')
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          dimensions: [
            {
              name: 'certificate'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: false
    actions: {
      actionGroups: actionGroups
    }
  }
}

// Estate discovery: a certificate certsched does not keep entered the unmanaged-and-expiring set.
resource estateExpiring 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-estate-expiring-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'certsched: a certificate certsched does not keep is expiring'
    description: 'Estate discovery (the discoverEstate timer) found a certificate certsched does not keep, on an App Service app, an Application Gateway listener, a Front Door domain or in a vault the app can read, expiring within CERTSCHED_ESTATE_EXPIRING_DAYS (30 by default). One line the run it enters the set, naming the certificate, where it lives, the account, its expiry and where it is bound. docs/estate.md.'
    severity: 2
    enabled: true
    scopes: [
      appInsights.id
    ]
    evaluationFrequency: 'PT1H'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: loadTextContent('../alerts/estate-expiring.kql')
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          dimensions: [
            {
              name: 'certificate'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: false
    actions: {
      actionGroups: actionGroups
    }
  }
}

// Every rule above, once: the notice counts them.
var ruleNameList = [
  sweepFailed.name
  sweepSilent.name
  certificateStuck.name
  certificateExpiring.name
  verificationFailed.name
  runPoisoned.name
  accountAlert.name
  preflightWillFail.name
  unexpectedIssuance.name
  vaultExpiry.name
  estateExpiring.name
]

// Receivers are listed by kind only: the webhook URL is a secret.
var receivers = join(concat(hasEmail ? ['e-mail ${alertEmail}'] : [], hasWebhook ? ['a webhook'] : []), ' and ')

@description('What happens when an alert fires, in words; main.bicep passes it on as an azd output.')
output notice string = hasActionGroup
  ? 'The ${length(ruleNameList)} certsched alert rules notify ${receivers} through action group ${actionGroup.name}.'
  : 'NO ACTION GROUP: the ${length(ruleNameList)} certsched alert rules are deployed but notify nobody (they show in the Azure portal only). Set AZURE_ALERT_EMAIL and/or AZURE_ALERT_WEBHOOK_URL (azd env set ...) and run azd provision again.'

output actionGroupId string = hasActionGroup ? actionGroup.id : ''
output ruleNames array = ruleNameList
