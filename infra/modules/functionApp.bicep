// The function app on a Flex Consumption plan (FC1, Linux, Node). Everything it reaches (host
// storage, deployment package, Key Vault, Application Insights) is reached with the user-assigned
// identity: no connection string or key is stored in its settings.

@description('Name of the function app (also its host name: <name>.azurewebsites.net).')
param name string

@description('Name of the Flex Consumption plan.')
param planName string

@description('Azure region of the plan and the app (must offer Flex Consumption).')
param location string

@description('Tags applied to the plan and the app.')
param tags object = {}

@description('azd service name from azure.yaml; `azd deploy` finds the app by this tag.')
param serviceName string

@description('Node.js major version of the worker: 24 (default; generally available on Flex Consumption, supported to 2028-04-30) or 22 (supported to 2027-04-30). Node 20\'s support ended 2026-04-30. CI tests both.')
@allowed([
  '22'
  '24'
])
param nodeVersion string = '24'

// Why 100 (docs/deploy.md, "Many accounts: how many instances, how long"): the queue trigger
// sweeps at most 4 account parts at once per instance (host.json batchSize 2 + newBatchThreshold
// 2), and the platform scales it out by queue length, so 100 instances sweep 400 accounts at once:
// a run of a few hundred accounts is one wave. Each part keeps at most
// CERTSCHED_RENEWAL_CONCURRENCY_MAX renewals in flight, so the app's load on the service is at most
// instances x 4 x that; lower this if the vendor's service (shared by your accounts) cannot take it.
@description('Most instances the app may scale out to. Flex Consumption (FC1) accepts 40 to 1000; Azure\'s default is 100. Each instance sweeps at most 4 accounts at once (host.json), so 100 instances sweep 400 accounts at once; the load on the service is at most instances x 4 x the renewal concurrency.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 100

@description('Memory of each instance in MB.')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('Resource id of the user-assigned identity the app runs as.')
param identityId string

@description('Client id of that identity (AZURE_CLIENT_ID, AzureWebJobsStorage__clientId).')
param identityClientId string

@description('Name of the app\'s storage account (AzureWebJobsStorage).')
param storageAccountName string

@description('Blob container in that account holding the deployment package.')
param deploymentContainerName string

@description('Name of the Application Insights component the app reports to.')
param appInsightsName string

@description('certsched\'s own app settings as { name, value } pairs (main.bicep builds them). Secret values never travel here.')
param appSettings array

@description('CERTSCHED_WEBHOOK_URL: Teams workflow / Slack / JSON webhook for sweep notifications. Secure because the URL carries its signature. Empty: no notifications.')
@secure()
param webhookUrl string = ''

@description('Application (client) id of the Entra ID app registration that protects the HTTP API (docs/deploy.md "Entra ID"). Empty: App Service Authentication stays off and function keys alone guard the API.')
param entraClientId string = ''

@description('Directory (tenant) id of that app registration. Empty: the tenant of this deployment.')
param entraTenantId string = ''

@description('Paths left to function keys alone when Entra ID is on, for service callers that cannot obtain a token, e.g. ["/api/renewals"]. Every other path requires a token.')
param entraKeyOnlyPaths array = []

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true
  }
}

// Host settings. Flex Consumption rejects FUNCTIONS_WORKER_RUNTIME, FUNCTIONS_EXTENSION_VERSION,
// WEBSITE_RUN_FROM_PACKAGE and friends: the runtime and the package come from functionAppConfig.
var platformSettings = [
  { name: 'AzureWebJobsStorage__accountName', value: storage.name }
  { name: 'AzureWebJobsStorage__credential', value: 'managedidentity' }
  { name: 'AzureWebJobsStorage__clientId', value: identityClientId }
  // DefaultAzureCredential (Key Vault, ledger, managed-identity mode) picks this identity.
  { name: 'AZURE_CLIENT_ID', value: identityClientId }
  { name: 'APPLICATIONINSIGHTS_CONNECTION_STRING', value: appInsights.properties.ConnectionString }
  { name: 'APPLICATIONINSIGHTS_AUTHENTICATION_STRING', value: 'ClientId=${identityClientId};Authorization=AAD' }
]

var secureSettings = [
  { name: 'CERTSCHED_WEBHOOK_URL', value: webhookUrl }
]

resource app 'Microsoft.Web/sites@2024-04-01' = {
  name: name
  location: location
  tags: union(tags, { 'azd-service-name': serviceName })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    siteConfig: {
      minTlsVersion: '1.2'
      appSettings: concat(platformSettings, appSettings, secureSettings)
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storage.properties.primaryEndpoints.blob}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
      }
      runtime: {
        name: 'node'
        version: nodeVersion
      }
    }
  }
}

var entraTenant = empty(entraTenantId) ? tenant().tenantId : entraTenantId

// App Service Authentication (Easy Auth) in front of the API, only with an app registration.
// The platform validates the bearer token (issuer, signature, lifetime, audience), answers 401
// itself when there is none, strips any x-ms-client-principal a client sends and writes its own;
// it also sets WEBSITE_AUTH_ENABLED=True, which is how shared/auth knows the header is the
// platform's. The app then checks the app role (certsched.Reader / certsched.Operator). The
// functions keep authLevel "function": the host still wants a key on every call, so a path
// excluded here is guarded by its key alone, never left open. docs/deploy.md "Entra ID" explains
// the design.
resource auth 'Microsoft.Web/sites/config@2024-04-01' = if (!empty(entraClientId)) {
  parent: app
  name: 'authsettingsV2'
  properties: {
    platform: {
      enabled: true
    }
    globalValidation: {
      requireAuthentication: true
      // An API: no redirect to a sign-in page, a 401 the caller can act on.
      unauthenticatedClientAction: 'Return401'
      excludedPaths: entraKeyOnlyPaths
    }
    identityProviders: {
      azureActiveDirectory: {
        enabled: true
        registration: {
          clientId: entraClientId
          openIdIssuer: '${environment().authentication.loginEndpoint}${entraTenant}/v2.0'
        }
        validation: {
          // v2 tokens carry the client id, v1 tokens the application id URI.
          allowedAudiences: [
            entraClientId
            'api://${entraClientId}'
          ]
        }
      }
    }
    login: {
      // Bearer tokens only: no sessions or stored tokens to protect.
      tokenStore: {
        enabled: false
      }
    }
    httpSettings: {
      requireHttps: true
    }
  }
}

output name string = app.name
output defaultHostName string = app.properties.defaultHostName
output id string = app.id
