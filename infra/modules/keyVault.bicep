// Key Vault in RBAC mode holding the service API key and the app registration's client secret.
// A secret whose value is left empty is not created: set it later with `az keyvault secret set`
// (docs/deploy.md), which also keeps it out of the deployment's inputs.

@description('Name of the Key Vault (3-24 letters, digits and hyphens, globally unique).')
@minLength(3)
@maxLength(24)
param name string

@description('Azure region of the vault.')
param location string

@description('Tags applied to the vault.')
param tags object = {}

@description('Days a deleted vault or secret can be recovered (7-90).')
@minValue(7)
@maxValue(90)
param softDeleteRetentionInDays int = 90

@description('Turn on purge protection. It cannot be turned off again, and the vault name stays taken until the retention ends.')
param enablePurgeProtection bool = false

@description('Name of the secret holding the service API key (CERTSCHED_API_KEY_SECRET_NAME).')
param apiKeySecretName string

@description('Name of the secret holding the client secret (CERTSCHED_CLIENT_SECRET_SECRET_NAME).')
param clientSecretSecretName string

@description('Service API key. Leave empty to set it later with `az keyvault secret set --vault-name <vault> --name <apiKeySecretName> --value ...`.')
@secure()
param apiKey string = ''

@description('Client secret of the app registration. Leave empty to set it later with `az keyvault secret set --vault-name <vault> --name <clientSecretSecretName> --value ...`.')
@secure()
param clientSecret string = ''

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: softDeleteRetentionInDays
    // The API refuses `false` here: purge protection is either on or absent.
    enablePurgeProtection: enablePurgeProtection ? true : null
    publicNetworkAccess: 'Enabled'
  }
}

resource apiKeySecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(apiKey)) {
  parent: vault
  name: apiKeySecretName
  properties: {
    value: apiKey
    contentType: 'text/plain'
  }
}

resource clientSecretSecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(clientSecret)) {
  parent: vault
  name: clientSecretSecretName
  properties: {
    value: clientSecret
    contentType: 'text/plain'
  }
}

output name string = vault.name
output uri string = vault.properties.vaultUri
