// Application Insights on a Log Analytics workspace: the host's logs, the sweep summaries and
// certsched's OpenTelemetry metrics and traces all land in the workspace.

@description('Name of the Log Analytics workspace.')
param logAnalyticsName string

@description('Name of the Application Insights component.')
param appInsightsName string

@description('Azure region of both resources.')
param location string

@description('Tags applied to both resources.')
param tags object = {}

@description('Days the workspace keeps data (30 is included in the price).')
@minValue(30)
@maxValue(730)
param retentionInDays int = 30

@description('Accept only Entra-authenticated telemetry (the app sends it with its identity through APPLICATIONINSIGHTS_AUTHENTICATION_STRING). Leave false unless certsched\'s own OpenTelemetry exporter is also given a credential.')
param disableLocalAuth bool = false

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: appInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: workspace.id
    DisableLocalAuth: disableLocalAuth
  }
}

output appInsightsName string = appInsights.name
output logAnalyticsName string = workspace.name
