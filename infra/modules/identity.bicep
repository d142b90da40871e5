// The app's own identity: one user-assigned identity used for the host storage, the deployment
// package, Key Vault, Application Insights and (in managed-identity mode) the customer's cloud.
// User-assigned rather than system-assigned so role assignments can be made before the app exists.

@description('Name of the user-assigned managed identity.')
param name string

@description('Azure region of the identity.')
param location string

@description('Tags applied to the identity.')
param tags object = {}

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output name string = identity.name
output clientId string = identity.properties.clientId
output principalId string = identity.properties.principalId
